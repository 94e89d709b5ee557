export { PhotosPage } from './routes/photos-page';
