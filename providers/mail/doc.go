// Package mail sends kycflow's verification-link e-mails over SMTP.
//
// For idin (bank identification) and idscan (identity document) checks a
// person receives a single-use link {PUBLIC_URL}/verify/{token}. A Mailer
// renders that message in English or Dutch, as one multipart/alternative
// message with a text/plain and a text/html part, and hands it to an SMTP
// server in a single synchronous, context-aware call.
//
// Retrying is left to the caller (a Temporal activity): SendLink makes one
// attempt and returns an error that IsPermanent classifies, so a retry
// policy can stop early on failures that retrying cannot fix, such as a 5xx
// reply to RCPT TO.
//
// The templates are embedded (templates/link.{en,nl}.{txt,html}); the token
// appears only inside the URL, never in a header, log line or error.
package mail
