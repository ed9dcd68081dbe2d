// Package signin holds what staff sign in to the console with: passwords
// hashed with argon2id, second factors by TOTP (RFC 6238), and the random
// tokens of invitations and sessions, of which the store keeps hashes
// only. It imports nothing of kycflow's.
package signin
