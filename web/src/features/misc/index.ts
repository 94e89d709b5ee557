export { NotFoundPage } from './routes/not-found-page';
