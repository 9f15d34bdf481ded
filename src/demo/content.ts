import type { DemoEvent, DemoForm, DemoPage, DemoPost } from './types.ts';

/** What the demo school publishes: events, blog posts, pages and forms. */

export const EVENTS: DemoEvent[] = [
  {
    key: 'python-qa',
    title: 'Live Q&A: Getting Started with Python',
    description:
      'Bring your questions about installing Python, your first programs or the exercises in Python Foundations. Dr. Niamh Keane answers live, and we share the recording with everyone who signed up.',
    inDays: 5,
    hour: 18,
    minutes: 60,
    location: 'Online',
    online_url: 'https://meet.larkspur-academy.example/python-qa',
    capacity: 100,
    price_cents: 0,
    status: 'published',
    attendees: ['s29', 's22', 's12', ['Ronan Walsh', 'ronan.walsh@example.net']],
  },
  {
    key: 'portfolio-night',
    title: 'Portfolio Review Night',
    description:
      'An evening at our Dublin studio: show your design or development portfolio to two lecturers and get concrete, friendly advice. Light food and drinks provided.',
    inDays: 12,
    hour: 17,
    minutes: 150,
    location: 'Larkspur Studio, 14 Harbour Row, Dublin 2',
    capacity: 30,
    price_cents: 1500,
    status: 'published',
    attendees: ['s16', 's30', 's21'],
  },
  {
    key: 'query-plans',
    title: 'Workshop: Query Plans Explained',
    description:
      'A two-hour hands-on workshop with Jonas Lindqvist. We take five slow queries from real applications and make each of them fast, reading the execution plan at every step.',
    inDays: 19,
    hour: 16,
    minutes: 120,
    location: 'Online',
    online_url: 'https://meet.larkspur-academy.example/query-plans',
    capacity: 40,
    price_cents: 2500,
    status: 'published',
    attendees: ['s14', 's24', 's03'],
  },
  {
    key: 'open-day',
    title: 'Open Day and Course Fair',
    description:
      'Meet all six lecturers, see short demos of every course and ask about memberships, certificates and study plans. Free, online, and you can drop in and out.',
    inDays: 33,
    hour: 11,
    minutes: 240,
    location: 'Online',
    online_url: 'https://meet.larkspur-academy.example/open-day',
    capacity: 0,
    price_cents: 0,
    status: 'published',
    attendees: ['s11', ['Hannah Schmidt', 'hannah.schmidt@example.org']],
  },
  {
    key: 'writing-sprint',
    title: 'Writing Sprint: Documentation That Works',
    description:
      'Ninety minutes of focused writing with Claire Okafor: bring a README or a how-to guide you have been putting off and leave with a finished draft.',
    inDays: -21,
    hour: 17,
    minutes: 90,
    location: 'Online',
    online_url: 'https://meet.larkspur-academy.example/writing-sprint',
    capacity: 25,
    price_cents: 0,
    status: 'published',
    attendees: ['s26', 's10', 's21', 's03'],
  },
  {
    key: 'bootcamp-info',
    title: 'Summer Bootcamp Information Session',
    description:
      'What our twelve-week summer bootcamp covers, who it is for and how to apply. Date and details to be confirmed.',
    inDays: 60,
    hour: 18,
    minutes: 45,
    location: 'Online',
    capacity: 200,
    price_cents: 0,
    status: 'draft',
    attendees: [],
  },
];

export const POSTS: DemoPost[] = [
  {
    key: 'welcome',
    title: 'Welcome to Larkspur Academy',
    slug: 'welcome-to-larkspur-academy',
    excerpt: 'Why we started an online school, and what you can expect from our courses.',
    body:
      'We started Larkspur Academy with a simple idea: the best person to teach a skill is someone who uses it every day.\n\n## What makes us different\n\n- **Working lecturers.** Every lecturer still practises what they teach.\n- **Real projects.** Each course ends with something you can show.\n- **Real feedback.** A person reviews your final project, not a script.\n\nWe are glad you are here.',
    author_name: 'Maeve Lynch',
    publishedDaysAgo: 340,
    daysAgo: 342,
  },
  {
    key: 'coding-habits',
    title: 'Five Habits That Make Learning to Code Easier',
    slug: 'five-habits-learning-to-code',
    excerpt: 'Small routines our most successful students share, from typing every example to taking breaks on purpose.',
    body:
      'After a year of reading student feedback, we noticed the same habits again and again among people who finish their courses.\n\n1. **Type every example** instead of copying it.\n2. **Code a little every day**, even fifteen minutes.\n3. **Read error messages to the end.** The answer is often in the last line.\n4. **Explain your code out loud.**\n5. **Take real breaks.** Your brain keeps working while you walk.\n\nWhich one will you try this week?',
    author_name: 'Dr. Niamh Keane',
    publishedDaysAgo: 260,
    daysAgo: 262,
  },
  {
    key: 'sql-indexes',
    title: 'Why Is My Query Slow? A Gentle Introduction to Indexes',
    slug: 'why-is-my-query-slow',
    excerpt: 'An index is like the index of a book. Here is what that means for your database, with one example you can try today.',
    body:
      'Imagine finding every mention of "Dublin" in a 900-page book without an index: you would read every page. Databases do the same when a table has no suitable index.\n\n```sql\nCREATE INDEX orders_customer_id ON orders (customer_id);\n```\n\nWith this one line, looking up a customer\'s orders goes from reading the whole table to a handful of page reads. Our *PostgreSQL Performance Tuning* course goes much further.',
    author_name: 'Jonas Lindqvist',
    publishedDaysAgo: 180,
    daysAgo: 182,
  },
  {
    key: 'typescript-launch',
    title: 'New Course: TypeScript for JavaScript Developers',
    slug: 'new-course-typescript',
    excerpt: 'Our most requested course is here. Tomás Ferreira shows how to add types to the code you already write.',
    body:
      'You asked, and Tomás delivered. *TypeScript for JavaScript Developers* is open for enrolment today.\n\nIt covers the type system step by step and ends with a real migration project. Members of any All-Access plan get it at no extra cost.',
    author_name: 'Daniel Moreau',
    publishedDaysAgo: 62,
    daysAgo: 64,
  },
  {
    key: 'research-on-budget',
    title: 'User Research on a Shoestring Budget',
    slug: 'user-research-on-a-budget',
    excerpt: 'You do not need a lab or a recruiting agency to learn from users. Five conversations are enough to start.',
    body:
      'The most common reason teams skip research is that it seems expensive. It does not have to be.\n\n## Start small\n\nFive interviews of thirty minutes each will show you most of the big problems. Ask about past behaviour, not opinions: *"Tell me about the last time you..."* beats *"Would you use..."* every time.\n\n## Share quickly\n\nA one-page summary, sent the same week, is worth more than a perfect report sent a month later.',
    author_name: 'Priya Raman',
    publishedDaysAgo: 35,
    daysAgo: 37,
  },
  {
    key: 'student-story',
    title: 'From Spreadsheets to Python: Aoife\'s Story',
    slug: 'student-story-aoife',
    excerpt: 'An accountant who automated her monthly reports, and what she would tell anyone starting out.',
    body:
      'Aoife spent two days every month copying numbers between spreadsheets. Six months after starting *Python Foundations*, the same report takes twenty minutes.\n\n> "The first project felt small, but it was the first time a computer did something because I told it to."\n\nShe is now halfway through *Data Analysis with pandas*.',
    author_name: 'Claire Okafor',
    publishedDaysAgo: 9,
    daysAgo: 11,
  },
  {
    key: 'summer-bootcamp',
    title: 'Announcing the Summer Bootcamp',
    slug: 'announcing-summer-bootcamp',
    excerpt: 'Twelve weeks, one cohort, one portfolio. Details coming soon.',
    body: 'Draft: dates, price and curriculum still to be confirmed with the lecturers.',
    author_name: 'Maeve Lynch',
    daysAgo: 4,
  },
  {
    key: 'photo-tips',
    title: 'Ten Photo Tips for Better Course Thumbnails',
    slug: 'photo-tips-course-thumbnails',
    excerpt: 'Simple ways to make your course images look professional with a phone.',
    body: 'Draft outline:\n\n- Shoot near a window\n- Clean the lens\n- Leave space for the title\n- Keep backgrounds simple',
    author_name: 'Marco Bellini',
    daysAgo: 2,
  },
];

export const PAGES: DemoPage[] = [
  {
    title: 'About us',
    slug: 'about',
    body:
      '# About Larkspur Academy\n\nLarkspur Academy is a small online school based in Dublin. Since our first course we have taught students in more than thirty countries.\n\n## Our promise\n\n- Courses taught by people who practise what they teach\n- Projects reviewed by a real person\n- A refund within 14 days, no questions asked\n\n## The team\n\nSix lecturers, a small operations team and a lot of coffee.',
    status: 'published',
    daysAgo: 420,
  },
  {
    title: 'Frequently asked questions',
    slug: 'faq',
    body:
      '# Frequently asked questions\n\n## How long do I have access to a course?\n\nFor as long as the school exists. Archived courses stay available to everyone who enrolled.\n\n## Can I get a refund?\n\nYes, within 14 days of purchase. Write to hello@larkspur-academy.example.\n\n## Do I get a certificate?\n\nYes, when you complete every lesson and pass the final quiz.\n\n## What does a membership include?\n\nEvery published course, new courses as they launch, and members-only live sessions.',
    status: 'published',
    daysAgo: 410,
  },
  {
    title: 'Terms of service',
    slug: 'terms',
    body:
      '# Terms of service\n\nThese terms apply to every purchase and membership at Larkspur Academy.\n\n1. **Access.** A course purchase gives one person personal access to the course.\n2. **Memberships** renew automatically until cancelled; cancelling stops the next renewal.\n3. **Refunds** are available within 14 days of purchase.\n4. **Conduct.** Be kind in discussions; we remove abusive content.\n\nQuestions? Contact hello@larkspur-academy.example.',
    status: 'published',
    daysAgo: 410,
  },
  {
    title: 'Privacy policy',
    slug: 'privacy',
    body:
      '# Privacy policy\n\nWe collect only what we need to run your account: your name, email address, purchases and course progress.\n\n- We never sell personal data.\n- Payments are handled by our payment provider; we do not store card numbers.\n- You can ask for a copy of your data, or its deletion, at any time.\n\nOur data protection contact is privacy@larkspur-academy.example.',
    status: 'published',
    daysAgo: 410,
  },
  {
    title: 'Teach with us',
    slug: 'teach-with-us',
    body: '# Teach with us\n\nDraft: what we look for in new lecturers, how course revenue is shared, and how to send a proposal.',
    status: 'draft',
    daysAgo: 6,
  },
];

export const FORMS: DemoForm[] = [
  {
    key: 'contact',
    title: 'Contact us',
    description: 'Questions about courses, memberships or your account. We answer within one working day.',
    fields: [
      { name: 'name', label: 'Your name', type: 'text' },
      { name: 'email', label: 'Email address', type: 'email' },
      { name: 'topic', label: 'Topic', type: 'select' },
      { name: 'message', label: 'Message', type: 'textarea' },
    ],
    daysAgo: 420,
    submissions: [
      { daysAgo: 210, data: { name: 'Grace Kim', email: 'grace.kim@example.com', topic: 'Courses', message: 'Is Python Foundations suitable for a complete beginner aged 60? I have never programmed before.' } },
      { daysAgo: 95, data: { name: 'Liam O\'Brien', email: 'liam.obrien@example.com', topic: 'Billing', message: 'Can I get an invoice with my company\'s VAT number for the SQL course?' } },
      { daysAgo: 40, data: { name: 'Sofia Rossi', email: 'sofia.rossi@example.it', topic: 'Memberships', message: 'If I switch from the monthly to the yearly plan, is the current month credited?' } },
      { daysAgo: 3, data: { name: 'Ahmed Hassan', email: 'ahmed.hassan@example.net', topic: 'Teams', message: 'We are a team of eight developers. Do you offer group pricing for the PostgreSQL course?' } },
    ],
  },
  {
    key: 'course-feedback',
    title: 'Course feedback',
    description: 'Tell us how a course went for you. Lecturers read every answer.',
    fields: [
      { name: 'course', label: 'Course', type: 'text' },
      { name: 'rating', label: 'Rating (1 to 5)', type: 'number' },
      { name: 'liked', label: 'What worked well?', type: 'textarea' },
      { name: 'improve', label: 'What should we improve?', type: 'textarea' },
    ],
    daysAgo: 300,
    submissions: [
      { daysAgo: 280, data: { course: 'Python Foundations', rating: 5, liked: 'The small projects. I actually use the expense tracker.', improve: 'More exercises on dictionaries.' } },
      { daysAgo: 190, data: { course: 'SQL from Zero to Confident', rating: 5, liked: 'Clear explanations of joins, finally.', improve: 'Nothing, really.' } },
      { daysAgo: 150, data: { course: 'UX Research Essentials', rating: 4, liked: 'The recorded example interviews.', improve: 'The recruiting lesson could have more templates.' } },
      { daysAgo: 70, data: { course: 'PostgreSQL Performance Tuning', rating: 5, liked: 'The EXPLAIN walkthroughs.', improve: 'A lesson on partitioning would be great.' } },
      { daysAgo: 30, data: { course: 'Data Analysis with pandas', rating: 4, liked: 'Real data sets instead of toy examples.', improve: 'Some videos are a bit fast.' } },
      { daysAgo: 8, data: { course: 'TypeScript for JavaScript Developers', rating: 5, liked: 'The migration project.', improve: 'More on generics, please.' } },
    ],
  },
];
