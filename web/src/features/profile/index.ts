export { ProfilePage } from './routes/profile-page';
