// Package engines holds kycflow's own engines: code that decides
// something without calling anyone — the sanctions matcher and the list
// formats it reads (sanctions, namematch, watchlist), and the validators
// of what people and registers write (iban, vatnum, mrz, eu). Clients of
// outside systems are in providers.
package engines
