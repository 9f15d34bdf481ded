import type { Appearance, DemoLecturer, DemoMember, SchoolSettings } from './types.ts';

/** The demo school itself: settings, look, teaching staff and team. */

export const SCHOOL: SchoolSettings = {
  name: 'Larkspur Academy',
  description:
    'Practical online courses in programming, data, design and writing, taught by people who do the work every day. Learn at your own pace, with real projects, friendly feedback and a community that helps.',
  locale: 'en-IE',
  currency: 'EUR',
  timezone: 'Europe/Dublin',
  contact_email: 'hello@larkspur-academy.example',
  contact_phone: '+353 1 555 0142',
  legal_name: 'Larkspur Academy Ltd.',
  address: '14 Harbour Row, Dublin 2, D02 XK75, Ireland',
  website: 'https://larkspur-academy.example',
};

export const APPEARANCE: Appearance = {
  theme: 'light',
  primary_color: '#1F4E79',
  accent_color: '#E8A33D',
  logo_url: 'https://larkspur-academy.example/images/logo.svg',
  logo_file_id: null,
};

export const LECTURERS: DemoLecturer[] = [
  {
    key: 'niamh',
    name: 'Dr. Niamh Keane',
    headline: 'Data scientist and Python teacher',
    bio: 'Niamh spent eight years analysing energy-grid data before she started teaching. She holds a PhD in applied statistics from University College Dublin and still consults for two renewable-energy start-ups. Her courses start from real, messy data sets and end with analyses you could show your manager on Monday.',
    expertise: ['Python', 'pandas', 'Statistics', 'Machine learning'],
    avatar_url: 'https://larkspur-academy.example/images/lecturers/niamh-keane.jpg',
    email: 'niamh.keane@larkspur-academy.example',
    daysAgo: 420,
  },
  {
    key: 'tomas',
    name: 'Tomás Ferreira',
    headline: 'Front-end engineer, builder of fast websites',
    bio: 'Tomás has built web applications for newsrooms, banks and a Lisbon bicycle-sharing scheme. He cares about accessible, fast pages and about code that the next person can read. In class he favours small, working examples over long theory, and he reviews every final project himself.',
    expertise: ['HTML and CSS', 'JavaScript', 'TypeScript', 'Web accessibility'],
    avatar_url: 'https://larkspur-academy.example/images/lecturers/tomas-ferreira.jpg',
    email: 'tomas.ferreira@larkspur-academy.example',
    daysAgo: 410,
  },
  {
    key: 'priya',
    name: 'Priya Raman',
    headline: 'Product designer and UX researcher',
    bio: 'Priya leads design research at a health-tech company and has run more than four hundred user interviews. She teaches how to find out what people actually need, how to turn that into interfaces, and how to explain design decisions to the rest of the team.',
    expertise: ['UX research', 'Interaction design', 'Figma', 'Usability testing'],
    avatar_url: 'https://larkspur-academy.example/images/lecturers/priya-raman.jpg',
    email: 'priya.raman@larkspur-academy.example',
    daysAgo: 400,
  },
  {
    key: 'jonas',
    name: 'Jonas Lindqvist',
    headline: 'Database engineer',
    bio: 'Jonas has kept PostgreSQL clusters healthy at a payments company in Stockholm for over a decade. He loves the moment a slow query drops from seconds to milliseconds and wants every developer to understand why it happened. His teaching is patient, precise and full of diagrams.',
    expertise: ['SQL', 'PostgreSQL', 'Query tuning', 'Data modelling'],
    avatar_url: 'https://larkspur-academy.example/images/lecturers/jonas-lindqvist.jpg',
    email: 'jonas.lindqvist@larkspur-academy.example',
    daysAgo: 395,
  },
  {
    key: 'claire',
    name: 'Claire Okafor',
    headline: 'Technical writer and editor',
    bio: 'Claire writes documentation for developer tools and edits a quarterly engineering magazine. Before that she taught secondary-school English for six years. She believes clear writing is a skill like any other: it improves fastest with short exercises and honest feedback.',
    expertise: ['Technical writing', 'Documentation', 'Editing', 'Presentations'],
    avatar_url: 'https://larkspur-academy.example/images/lecturers/claire-okafor.jpg',
    email: 'claire.okafor@larkspur-academy.example',
    daysAgo: 380,
  },
  {
    key: 'marco',
    name: 'Marco Bellini',
    headline: 'Photographer and video producer',
    bio: 'Marco shoots documentary photography and produces short educational films. His work has appeared in travel magazines and in museum exhibitions in Milan and Cork. He teaches people to tell stories with the camera they already carry in their pocket.',
    expertise: ['Photography', 'Video production', 'Visual storytelling', 'Editing'],
    avatar_url: 'https://larkspur-academy.example/images/lecturers/marco-bellini.jpg',
    email: 'marco.bellini@larkspur-academy.example',
    daysAgo: 360,
  },
];

export const TEAM: DemoMember[] = [
  { name: 'Maeve Lynch', email: 'maeve.lynch@larkspur-academy.example', role: 'owner', title: 'Founder and director', daysAgo: 430 },
  { name: 'Daniel Moreau', email: 'daniel.moreau@larkspur-academy.example', role: 'admin', title: 'Head of operations', daysAgo: 425 },
  ...LECTURERS.map((l): DemoMember => ({ name: l.name, email: l.email, role: 'lecturer', title: 'Lecturer', daysAgo: l.daysAgo })),
  { name: 'Aisling Byrne', email: 'aisling.byrne@larkspur-academy.example', role: 'support', title: 'Student support lead', daysAgo: 300 },
  { name: 'Kofi Mensah', email: 'kofi.mensah@larkspur-academy.example', role: 'support', title: 'Student support', daysAgo: 120 },
];
