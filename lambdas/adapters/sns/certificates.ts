/** The two SNS CertificateSource implementations: fetched over HTTPS (AWS) or pinned on disk (local). */
export {
  type CertificateGet,
  type CertificateRequest,
  type CertificateResponse,
  HttpsCertificateFetcher,
  type HttpsCertificateFetcherOptions,
  MAX_CERTIFICATE_TIMEOUT_MS,
  nodeHttpsGet,
} from './certificate-fetcher.js';
export { publicKeyFromCertificate } from './certificate-key.js';
export { PinnedDirectoryCertificates } from './pinned-certificates.js';
