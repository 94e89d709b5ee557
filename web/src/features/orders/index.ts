export { OrdersPage } from './routes/orders-page';
