export { DevelopersPage } from './routes/developers-page';
