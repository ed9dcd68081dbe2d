// Package signin holds what staff sign in to the console with: passwords
// hashed with argon2id (peppered with STAFF_KEY, a bounded number at
// once), second factors by TOTP (RFC 6238), and the random tokens of
// invitations and sessions, of which the store keeps hashes keyed with
// STAFF_KEY only. It imports nothing of kycflow's.
package signin
