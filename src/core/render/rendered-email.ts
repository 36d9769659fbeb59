/** What every email renderer returns (the digest, the license emails, the owners' notices): its two parts. */
export interface RenderedEmail {
  html: string;
  text: string;
}
