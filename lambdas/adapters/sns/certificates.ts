/** The two SNS CertificateSource implementations: fetched over HTTPS (AWS) or pinned on disk (local). */
export {
  HttpsCertificateFetcher,
  MAX_CERTIFICATE_TIMEOUT_MS,
  nodeHttpsGet,
  type CertificateGet,
  type CertificateRequest,
  type CertificateResponse,
  type HttpsCertificateFetcherOptions,
} from './certificate-fetcher.js';
export { PinnedDirectoryCertificates } from './pinned-certificates.js';
export { publicKeyFromCertificate } from './certificate-key.js';
