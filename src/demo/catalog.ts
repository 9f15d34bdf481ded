import type { DemoCourse, DemoPlan, DemoProduct } from './types.ts';

/** What the demo school sells: courses with their curriculum, membership plans, digital products. */

export const COURSES: DemoCourse[] = [
  {
    key: 'python',
    title: 'Python Foundations',
    slug: 'python-foundations',
    summary: 'Learn to program from scratch with Python: variables, loops, functions and files, with a small project in every section.',
    description:
      '## Who this course is for\n\nYou have never written a program, or you tried once and gave up. Python Foundations starts at the very beginning and moves in small steps.\n\n## What you will build\n\n- A tip calculator\n- A word-frequency counter for any text file\n- A tiny expense tracker that saves to CSV\n\n## How it works\n\nShort videos, readings you can finish on a lunch break, and a quiz at the end of every section. Your final project is reviewed by a lecturer.',
    level: 'beginner',
    price_cents: 4900,
    lecturers: ['niamh'],
    status: 'published',
    daysAgo: 400,
    sections: [
      {
        title: 'Getting set up',
        lessons: [
          [
            'Welcome and how this course works',
            'video',
            6,
            true,
            '## Welcome\n\nIn this course you will write real Python programs from the very first week.\n\n- Watch each video, then type the code yourself.\n- Do the quiz at the end of every section.\n- Ask questions in the course discussion at any time.\n\nSee you in the next lesson, where we install Python.',
          ],
          ['Installing Python and an editor', 'video', 12, true],
          ['Your first program', 'text', 10],
        ],
      },
      {
        title: 'Values, variables and decisions',
        lessons: [
          ['Numbers, strings and booleans', 'video', 14],
          ['Storing values in variables', 'text', 8],
          ['Making decisions with if and else', 'video', 15],
          ['Project: a tip calculator', 'assignment', 30],
          ['Section quiz', 'quiz', 10],
        ],
      },
      {
        title: 'Repeating work',
        lessons: [
          ['Lists and for loops', 'video', 16],
          ['While loops and when to use them', 'text', 10],
          ['Dictionaries', 'video', 14],
          ['Project: counting words in a text', 'assignment', 40],
        ],
      },
      {
        title: 'Functions and files',
        lessons: [
          ['Writing your own functions', 'video', 18],
          ['Reading and writing files', 'video', 15],
          ['Final project: an expense tracker', 'assignment', 60],
          ['Final quiz', 'quiz', 15],
        ],
      },
    ],
  },
  {
    key: 'data-analysis',
    title: 'Data Analysis with pandas',
    slug: 'data-analysis-with-pandas',
    summary: 'Clean, explore and summarise real data sets with pandas, then present what you found in clear charts.',
    description:
      '## What you will learn\n\nThis course takes you from loading a CSV file to answering real questions with data. We work with public data: Dublin Bikes trips, EU energy prices and a year of weather readings.\n\n## Before you start\n\nYou should be comfortable with Python basics: variables, lists, loops and functions. *Python Foundations* covers all of it.',
    level: 'intermediate',
    price_cents: 7900,
    lecturers: ['niamh'],
    status: 'published',
    daysAgo: 330,
    sections: [
      {
        title: 'DataFrames in a hurry',
        lessons: [
          ['Why pandas?', 'video', 8, true],
          ['Loading CSV and Excel files', 'video', 14, true],
          ['Selecting rows and columns', 'text', 12],
        ],
      },
      {
        title: 'Cleaning messy data',
        lessons: [
          ['Missing values', 'video', 15],
          ['Fixing types and dates', 'video', 13],
          ['Duplicates and outliers', 'text', 12],
          ['Exercise: clean the bike-trip data', 'assignment', 45],
        ],
      },
      {
        title: 'Asking questions',
        lessons: [
          ['Group by and aggregate', 'video', 18],
          ['Joining tables', 'video', 16],
          ['Time series basics', 'text', 15],
          ['Section quiz', 'quiz', 10],
        ],
      },
      {
        title: 'Showing what you found',
        lessons: [
          ['Charts with matplotlib', 'video', 17],
          ['Choosing the right chart', 'text', 10],
          ['Final project: an energy-price report', 'assignment', 90],
        ],
      },
    ],
  },
  {
    key: 'ml',
    title: 'Machine Learning in Practice',
    slug: 'machine-learning-in-practice',
    summary: 'Build, evaluate and deploy useful models with scikit-learn, and learn to tell a good model from a lucky one.',
    description:
      '## In preparation\n\nA hands-on course on supervised learning: regression, classification, validation and deployment of a small model behind an API.\n\nYou will need solid Python and pandas skills.',
    level: 'advanced',
    price_cents: 12900,
    lecturers: ['niamh', 'jonas'],
    status: 'draft',
    daysAgo: 45,
    sections: [
      {
        title: 'Framing the problem',
        lessons: [
          ['What machine learning is good for', 'video', 12, true],
          ['Features, labels and leakage', 'text', 15],
        ],
      },
      {
        title: 'Your first models',
        lessons: [
          ['Linear regression', 'video', 20],
          ['Logistic regression', 'video', 18],
          ['Decision trees and forests', 'video', 22],
        ],
      },
      {
        title: 'Evaluating honestly',
        lessons: [
          ['Train, validation and test sets', 'text', 14],
          ['Cross-validation', 'video', 16],
          ['Metrics that match the question', 'text', 12],
          ['Quiz: spot the mistake', 'quiz', 15],
        ],
      },
      {
        title: 'Shipping a model',
        lessons: [
          ['Saving and loading models', 'video', 10],
          ['Serving predictions from an API', 'video', 20],
          ['Final project: predict energy demand', 'assignment', 120],
        ],
      },
    ],
  },
  {
    key: 'web',
    title: 'Modern Web Development with HTML, CSS and JavaScript',
    slug: 'modern-web-development',
    summary: 'Build and publish responsive, accessible websites with plain HTML, CSS and JavaScript; no framework needed.',
    description:
      '## Build the web the durable way\n\nFrameworks come and go; HTML, CSS and JavaScript stay. In this course you build three sites of growing size and publish each of them.\n\n## Projects\n\n1. A personal profile page\n2. A responsive restaurant menu\n3. A to-do app that remembers your tasks\n\nEvery lesson keeps accessibility in mind, so your sites work for everyone.',
    level: 'beginner',
    price_cents: 5900,
    lecturers: ['tomas'],
    status: 'published',
    daysAgo: 390,
    sections: [
      {
        title: 'HTML: the structure',
        lessons: [
          ['How a web page gets to your screen', 'video', 10, true],
          ['Headings, paragraphs and links', 'video', 12, true],
          ['Semantic HTML and why it matters', 'text', 12],
          ['Project: your profile page', 'assignment', 45],
        ],
      },
      {
        title: 'CSS: the look',
        lessons: [
          ['Selectors and the cascade', 'video', 15],
          ['The box model', 'video', 12],
          ['Flexbox', 'video', 18],
          ['Grid', 'video', 18],
          ['Project: a responsive menu', 'assignment', 60],
        ],
      },
      {
        title: 'JavaScript: the behaviour',
        lessons: [
          ['Variables, functions and the console', 'video', 16],
          ['Working with the DOM', 'video', 18],
          ['Events and forms', 'text', 14],
          ['Section quiz', 'quiz', 10],
        ],
      },
      {
        title: 'Putting it online',
        lessons: [
          ['Saving data in the browser', 'video', 12],
          ['Publishing your site for free', 'text', 10],
          ['Final project: a to-do app', 'assignment', 90],
        ],
      },
    ],
  },
  {
    key: 'typescript',
    title: 'TypeScript for JavaScript Developers',
    slug: 'typescript-for-javascript-developers',
    summary: 'Add types to the JavaScript you already write, catch bugs before your users do, and refactor without fear.',
    description:
      '## Already know JavaScript?\n\nThen you are ready for TypeScript. This course shows how types fit into everyday code: functions, objects, API responses and React-free front-end code.\n\n## You will learn\n\n- Reading and writing type annotations\n- Narrowing, unions and generics\n- Migrating an existing project step by step\n- Configuring `tsconfig.json` with confidence',
    level: 'intermediate',
    price_cents: 6900,
    lecturers: ['tomas'],
    status: 'published',
    daysAgo: 75,
    sections: [
      {
        title: 'Why types',
        lessons: [
          ['Bugs that types catch', 'video', 9, true],
          ['Setting up a TypeScript project', 'video', 12],
        ],
      },
      {
        title: 'The type system',
        lessons: [
          ['Basic types and inference', 'video', 14],
          ['Objects, interfaces and type aliases', 'video', 16],
          ['Unions and narrowing', 'video', 18],
          ['Generics without the fear', 'text', 15],
          ['Section quiz', 'quiz', 12],
        ],
      },
      {
        title: 'Real projects',
        lessons: [
          ['Typing API responses', 'video', 15],
          ['Migrating a JavaScript project', 'text', 20],
          ['Strict mode and tsconfig options', 'text', 12],
          ['Final project: migrate a small app', 'assignment', 90],
        ],
      },
    ],
  },
  {
    key: 'sql',
    title: 'SQL from Zero to Confident',
    slug: 'sql-from-zero-to-confident',
    summary: 'Write queries that answer real business questions: filtering, joining, grouping and a little window-function magic.',
    description:
      '## Talk to your data directly\n\nSQL is the most useful language you have not learned yet. We use a sample database of a small online shop and answer questions a manager would actually ask.\n\n## No installation needed\n\nEvery exercise runs in your browser. Later lessons show how to connect to PostgreSQL and SQLite on your own computer.',
    level: 'beginner',
    price_cents: 3900,
    lecturers: ['jonas'],
    status: 'published',
    daysAgo: 370,
    sections: [
      {
        title: 'First queries',
        lessons: [
          ['What a database is', 'video', 8, true],
          ['SELECT and WHERE', 'video', 14, true],
          ['Sorting and limiting', 'text', 8],
        ],
      },
      {
        title: 'Combining tables',
        lessons: [
          ['Inner joins', 'video', 16],
          ['Outer joins', 'video', 14],
          ['Exercise: customers and their orders', 'assignment', 30],
        ],
      },
      {
        title: 'Summarising',
        lessons: [
          ['GROUP BY and aggregates', 'video', 15],
          ['HAVING', 'text', 8],
          ['Subqueries and CTEs', 'video', 18],
          ['Section quiz', 'quiz', 10],
        ],
      },
      {
        title: 'Going further',
        lessons: [
          ['Window functions', 'video', 20],
          ['Changing data safely', 'text', 12],
          ['Final project: a sales dashboard query set', 'assignment', 60],
        ],
      },
    ],
  },
  {
    key: 'postgres',
    title: 'PostgreSQL Performance Tuning',
    slug: 'postgresql-performance-tuning',
    summary: 'Find out why a query is slow and fix it: execution plans, indexes, statistics, and the settings that matter.',
    description:
      '## For developers who ship to production\n\nYou know SQL; now your tables have millions of rows. This course teaches a repeatable method for finding and fixing slow queries.\n\n## Topics\n\n- Reading `EXPLAIN ANALYZE` output\n- B-tree, GIN and partial indexes\n- Vacuum, statistics and bloat\n- Connection pooling and configuration',
    level: 'advanced',
    price_cents: 9900,
    lecturers: ['jonas'],
    status: 'published',
    daysAgo: 260,
    sections: [
      {
        title: 'Measuring before tuning',
        lessons: [
          ['The tuning method', 'video', 10, true],
          ['pg_stat_statements', 'video', 14],
        ],
      },
      {
        title: 'Execution plans',
        lessons: [
          ['Reading EXPLAIN', 'video', 20],
          ['Scans and joins', 'video', 18],
          ['When the planner guesses wrong', 'text', 15],
        ],
      },
      {
        title: 'Indexes',
        lessons: [
          ['How B-tree indexes work', 'video', 18],
          ['Composite and partial indexes', 'video', 16],
          ['GIN indexes for JSON and full-text search', 'text', 14],
          ['Exercise: make five queries fast', 'assignment', 60],
        ],
      },
      {
        title: 'Keeping the database healthy',
        lessons: [
          ['Vacuum and bloat', 'video', 15],
          ['Configuration that matters', 'text', 12],
          ['Connection pooling', 'video', 12],
          ['Final quiz', 'quiz', 20],
        ],
      },
    ],
  },
  {
    key: 'ux',
    title: 'UX Research Essentials',
    slug: 'ux-research-essentials',
    summary: 'Plan and run interviews and usability tests, make sense of what you heard, and turn it into decisions your team acts on.',
    description:
      '## Stop guessing what users want\n\nResearch does not need a lab or a big budget. In this course you plan a small study, talk to five real people and present what you learned.\n\n## Includes\n\n- Interview and test-plan templates\n- Recorded example interviews with commentary\n- Feedback on your final research report',
    level: 'beginner',
    price_cents: 5900,
    lecturers: ['priya'],
    status: 'published',
    daysAgo: 350,
    sections: [
      {
        title: 'Research basics',
        lessons: [
          ['What UX research is (and is not)', 'video', 10, true],
          ['Choosing a method', 'text', 12],
        ],
      },
      {
        title: 'Interviews',
        lessons: [
          ['Writing an interview guide', 'video', 14],
          ['Recruiting participants', 'text', 10],
          ['Running the interview', 'video', 18],
          ['Exercise: interview two people', 'assignment', 60],
        ],
      },
      {
        title: 'Usability testing',
        lessons: [
          ['Tasks and scenarios', 'video', 12],
          ['Moderating a test', 'video', 16],
          ['Section quiz', 'quiz', 10],
        ],
      },
      {
        title: 'From notes to decisions',
        lessons: [
          ['Affinity mapping', 'video', 14],
          ['Writing findings people read', 'text', 12],
          ['Final project: a research report', 'assignment', 90],
        ],
      },
    ],
  },
  {
    key: 'figma',
    title: 'Interface Design in Figma',
    slug: 'interface-design-in-figma',
    summary: 'Design clean, consistent app screens in Figma with components, auto layout and a small design system.',
    description:
      '## Retired course\n\nThis course has been replaced by a new edition. Students who bought it keep full access.\n\nIt covers frames, components, auto layout, variants and handing designs over to developers.',
    level: 'intermediate',
    price_cents: 6900,
    lecturers: ['priya'],
    status: 'archived',
    daysAgo: 340,
    sections: [
      {
        title: 'Figma fundamentals',
        lessons: [
          ['A tour of Figma', 'video', 10, true],
          ['Frames, shapes and text', 'video', 14],
        ],
      },
      {
        title: 'Components and layout',
        lessons: [
          ['Components and instances', 'video', 16],
          ['Auto layout', 'video', 18],
          ['Variants', 'text', 12],
        ],
      },
      {
        title: 'A small design system',
        lessons: [
          ['Colour and type styles', 'video', 12],
          ['Building a button library', 'assignment', 45],
          ['Handing off to developers', 'text', 10],
          ['Final quiz', 'quiz', 10],
        ],
      },
    ],
  },
  {
    key: 'writing',
    title: 'Clear Technical Writing',
    slug: 'clear-technical-writing',
    summary: 'A free short course: write documentation, emails and reports that people understand on first reading.',
    description:
      '## Free for everyone\n\nGood writing saves hours for every reader. In five short lessons a week you learn to plan a document, write plain sentences and edit your own work.\n\n## Exercises\n\nEach section ends with a rewrite exercise: you get a real, confusing text and make it clear.',
    level: 'beginner',
    price_cents: 0,
    lecturers: ['claire'],
    status: 'published',
    daysAgo: 280,
    sections: [
      {
        title: 'Know your reader',
        lessons: [
          ['Who will read this, and why?', 'video', 8, true],
          ['Planning before writing', 'text', 10, true],
        ],
      },
      {
        title: 'Plain sentences',
        lessons: [
          ['Short sentences, active voice', 'video', 10, true],
          ['Words to cut', 'text', 8],
          ['Exercise: rewrite a confusing email', 'assignment', 20],
        ],
      },
      {
        title: 'Structure and editing',
        lessons: [
          ['Headings, lists and tables', 'video', 10],
          ['Editing your own work', 'text', 10],
          ['Final quiz', 'quiz', 8],
        ],
      },
    ],
  },
  {
    key: 'photo',
    title: 'Smartphone Photography',
    slug: 'smartphone-photography',
    summary: 'Take striking photos with the phone in your pocket: light, composition, portraits and simple editing.',
    description: '## Archived\n\nThis course is no longer sold; enrolled students keep access.\n\nIt teaches composition, light and editing with free apps, through weekly photo challenges.',
    level: 'beginner',
    price_cents: 2900,
    lecturers: ['marco'],
    status: 'archived',
    daysAgo: 365,
    sections: [
      {
        title: 'Seeing the picture',
        lessons: [
          ['Your phone camera, explained', 'video', 10, true],
          ['Composition rules and when to break them', 'video', 14],
        ],
      },
      {
        title: 'Light',
        lessons: [
          ['Natural light through the day', 'video', 12],
          ['Shooting at night', 'text', 8],
          ['Challenge: one street, three times of day', 'assignment', 60],
        ],
      },
      {
        title: 'Editing and sharing',
        lessons: [
          ['Editing with free apps', 'video', 15],
          ['Building a small portfolio', 'text', 10],
          ['Final quiz', 'quiz', 8],
        ],
      },
    ],
  },
  {
    key: 'video',
    title: 'Video Storytelling for Teachers',
    slug: 'video-storytelling-for-teachers',
    summary: 'Plan, film and edit short teaching videos that hold attention, with simple equipment and a clear script.',
    description: '## Coming soon\n\nFor teachers and trainers who want to record their own lessons. Covers scripting, framing, sound, editing and captions.',
    level: 'intermediate',
    price_cents: 7900,
    lecturers: ['marco', 'claire'],
    status: 'draft',
    daysAgo: 20,
    sections: [
      {
        title: 'Planning',
        lessons: [
          ['What makes a teaching video work', 'video', 10, true],
          ['Writing a script', 'text', 14],
        ],
      },
      {
        title: 'Filming',
        lessons: [
          ['Framing and light at home', 'video', 14],
          ['Sound matters more than picture', 'video', 12],
          ['Exercise: film a two-minute explainer', 'assignment', 60],
        ],
      },
      {
        title: 'Editing',
        lessons: [
          ['Cutting for pace', 'video', 16],
          ['Captions and accessibility', 'text', 10],
        ],
      },
      {
        title: 'Publishing',
        lessons: [
          ['Exporting and uploading', 'text', 8],
          ['Final quiz', 'quiz', 10],
        ],
      },
    ],
  },
];

export const PLANS: DemoPlan[] = [
  {
    key: 'monthly',
    name: 'All-Access Monthly',
    description: 'Every published course, for as long as you stay a member. Cancel any time.',
    price_cents: 2900,
    interval: 'month',
    benefits: ['Access to every published course', 'New courses as soon as they launch', 'Members-only live Q&A sessions', 'Certificates of completion'],
    daysAgo: 380,
  },
  {
    key: 'yearly',
    name: 'All-Access Yearly',
    description: 'Everything in the monthly plan for a year, at the price of less than nine months.',
    price_cents: 24900,
    interval: 'year',
    benefits: ['Access to every published course', 'New courses as soon as they launch', 'Members-only live Q&A sessions', 'Certificates of completion', '20% off all digital products'],
    daysAgo: 380,
  },
  {
    key: 'mentored',
    name: 'Mentored Yearly',
    description: 'All-Access Yearly plus a personal mentor: a monthly one-to-one call and feedback on every project you submit.',
    price_cents: 59900,
    interval: 'year',
    benefits: ['Everything in All-Access Yearly', 'A monthly 45-minute call with a lecturer', 'Written feedback on every assignment', 'Portfolio and CV review', 'Free seats at all paid events'],
    daysAgo: 200,
  },
];

export const PRODUCTS: DemoProduct[] = [
  {
    key: 'pandas-cheatsheet',
    name: 'pandas Cheat Sheet',
    description: 'Four printable pages with the pandas operations you use every day: loading, selecting, cleaning, grouping and plotting, each with a one-line example.',
    format: 'PDF',
    price_cents: 900,
    status: 'published',
    daysAgo: 300,
  },
  {
    key: 'sql-workbook',
    name: 'SQL Practice Workbook',
    description: '120 graded exercises on a sample shop database, from simple SELECTs to window functions, with worked solutions and the database file.',
    format: 'PDF',
    price_cents: 1900,
    status: 'published',
    daysAgo: 330,
  },
  {
    key: 'ui-kit',
    name: 'Starter UI Kit for Figma',
    description: 'A tidy Figma file with 60 components (buttons, inputs, cards, navigation) built with auto layout and variants, ready to adapt to your brand.',
    format: 'Template',
    price_cents: 2900,
    status: 'published',
    daysAgo: 250,
  },
  {
    key: 'portfolio',
    name: 'Portfolio Review Video Pack',
    description: 'Six recorded reviews of real student portfolios in design and development, with what worked, what did not and how each was improved.',
    format: 'Video pack',
    price_cents: 3900,
    status: 'published',
    daysAgo: 160,
  },
  {
    key: 'interview-handbook',
    name: 'Technical Interview Handbook',
    description: 'How technical interviews work, what interviewers look for, and forty practice questions with model answers. Still being edited.',
    format: 'PDF',
    price_cents: 2400,
    status: 'draft',
    daysAgo: 12,
  },
];
