import { slugify } from './slug.js';

for (const title of process.argv.slice(2)) {
  console.log(slugify(title));
}
