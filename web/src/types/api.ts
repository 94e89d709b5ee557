/**
 * Shapes of the FotoPronta HTTP API, named for the web app: aliases of the types generated from the
 * server's OpenAPI document (`openapi.gen.ts`, `npm run gen:api`; `make api-types` regenerates both).
 * Change the server's schema, not these: `make webtest` fails while the generated file is stale.
 */
import type { components, operations } from './openapi.gen';

export { jobStatusValues, jobTypeValues, photoStatusValues } from './openapi.gen';

type Schemas = components['schemas'];

/** The roles the UI acts on (SPEC §6); the server sends `user_role` as a free string. */
export type UserRole = 'client' | 'graphic' | 'admin';

/** `GET /api/me`, `PATCH /api/me`. */
export type Profile = Schemas['ProfilePublic'];

/** `POST /api/auth/login`, `/verify`, `/refresh`. `password_required`: after a sign-up link opened in
 * another browser, this one-time session only sets a new password (`POST /api/auth/password/reset`). */
export type Session = Schemas['SessionOut'];

/** Job types (`fotopronta.domain.JobType` on the server, an enum in the OpenAPI document). */
export type JobType = Schemas['JobType'];
/** Job statuses (`fotopronta.domain.JobStatus`; SPEC §4 plus `waiting_for_credits`). */
export type JobStatus = Schemas['JobStatus'];
/** Photo statuses (`fotopronta.domain.PhotoStatus`). */
export type PhotoStatus = Schemas['PhotoStatus'];

export interface ColorInfo {
  hex: string;
  name: string;
}

/**
 * The keys of a job's `processing_details` the web app reads. The server sends the object as it is
 * stored (written by the retouch pipeline and the designers), so its schema is an open dictionary.
 */
export interface ProcessingDetails {
  seo_filename?: string | null;
  brand?: string | null;
  category?: string | null;
  colors?: ColorInfo[] | null;
  /** 0–1, written by the retouch pipeline: how sure it is of the cut-out. */
  confidence?: number | null;
  /** The pipeline is unsure of the result: the card shows 'Da verificare'. */
  needs_review?: boolean | null;
  /** Set when the preset kept the photo under the marketplace's minimum size (e.g. Amazon's 1000 px). */
  resolution_notice?: string | null;
}

/** One job of a photo (`JobPublic`), with `processing_details` read as {@link ProcessingDetails}. */
export type PhotoJob = Omit<Schemas['JobPublic'], 'processing_details'> & {
  processing_details: ProcessingDetails | null;
};

/** `GET /api/photos` items (`PhotoPublic`). `files_deleted_at` is set when retention (30 days after
 * delivery) removed the files; the row stays. */
export type Photo = Omit<Schemas['PhotoPublic'], 'jobs'> & { jobs: PhotoJob[] };

/** `POST /api/photos/batch`: the photos created and each refused file with its own reason. */
export type UploadBatchResult = Omit<Schemas['UploadBatchResult'], 'photos'> & { photos: Photo[] };
export type RejectedFile = Schemas['RejectedFile'];

/** `GET /api/photos`: one page and the counters over all the caller's photos. */
export type PhotoPage = Omit<Schemas['PhotoPage'], 'items'> & { items: Photo[] };
export type PhotoCounts = Schemas['PhotoCounts'];

export type AppNotification = Schemas['NotificationPublic'];

export type Order = Schemas['OrderPublic'];

/** `GET /api/orders/{id}`: an order with its photos. */
export type OrderDetail = Omit<Schemas['OrderDetail'], 'photos'> & { photos: Photo[] };

/** `GET /api/credits/purchases`; `stripe_payment_intent_id` is the checkout session id to verify. */
export type CreditPurchase = Schemas['PurchasePublic'];

/** `GET /api/credit-packages`. */
export type CreditPackage = Schemas['PackagePublic'];

/** `POST /api/payments/checkout`. */
export type CheckoutResult = Schemas['CheckoutOut'];

/** `POST /api/payments/verify` (the server answers by alias: `creditsAdded`, `totalCredits`). */
export type VerifyResult = Schemas['VerifyOut'];

/** `asc` or `desc`, the `order` of the admin's searches. */
export type SortOrder = NonNullable<NonNullable<operations['admin-jobs-list']['parameters']['query']>['order']>;

/** Request bodies. */
export type LoginInput = Schemas['LoginIn'];
export type SignupInput = Schemas['SignupIn'];
/** `PATCH /api/me`: the name and the upload form's defaults. */
export type ProfileInput = Schemas['ProfileUpdate'];
export type VerifyOtpInput = Schemas['VerifyOtpIn'];

/** `POST /api/events/ticket`: a short-lived, single-use ticket for one `GET /api/events?ticket=…`. */
export type StreamTicket = Schemas['TicketOut'];
/** `POST /api/auth/signup` (201) and the password endpoints' `{title, detail}`. */
export type SignupResult = Schemas['SignupOut'];
export type MessageResult = Schemas['MessageOut'];

/** `GET /api/config` (public): the server's product constants, so the web app never re-types them. */
export type AppConfig = Schemas['AppConfig'];

/** `GET /api/api-keys`: a key of the public API, listed by its prefix (never the secret). */
export type ApiKey = Schemas['ApiKeyPublic'];
/** `POST /api/api-keys`: the new key and its secret, answered once. */
export type ApiKeyCreated = Schemas['ApiKeyCreated'];
/** `POST /api/api-keys` body. */
export type ApiKeyInput = Schemas['ApiKeyCreate'];

/** `GET /api/webhook-endpoints`: an endpoint that receives signed events (never its secret). */
export type WebhookEndpoint = Schemas['WebhookEndpointOut'];
/** `POST /api/webhook-endpoints` and `…/rotate-secret`: the endpoint and its signing secret, answered once. */
export type WebhookEndpointCreated = Schemas['WebhookEndpointCreated'];
/** `POST /api/webhook-endpoints` body. */
export type WebhookEndpointInput = Schemas['WebhookEndpointIn'];
/** `GET /api/webhook-endpoints/{id}/deliveries`: a page of the delivery log. */
export type WebhookDeliveryPage = Schemas['WebhookDeliveryList'];
/** One delivery of the log, with its attempts. */
export type WebhookDelivery = Schemas['WebhookDeliveryOut'];
