export { UploadPage } from './routes/upload-page';
