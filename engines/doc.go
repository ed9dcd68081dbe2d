// Package engines holds kycflow's own engines: code that decides
// something without calling anyone — the sanctions matcher and the list
// formats it reads (sanctions, namematch, watchlist), the validators of
// what people and registers write (iban, vatnum, mrz, eu), and the reader
// of identity-document photos (mrzread, over docimage and ocrb) with the
// generator and evaluation its accuracy is measured by (docgen,
// mrzeval). Clients of outside systems are in providers.
package engines
