// Package idin verifies a person through their Dutch bank with iDIN, via
// CM.com's JSON broker API ("idin/v1.0"). The sandbox subpackage speaks the
// same protocol on loopback and hosts a fake bank page for testers.
//
// Flow: Issuers lists the banks; Start returns a Transaction whose
// RedirectURL the person's browser is sent to; the bank sends the person
// back to StartRequest.ReturnURL with the query parameters `trxid` (the
// transaction id) and `ec` (our entrance code) appended; then Status asks
// the broker for the outcome and, on success, the attributes.
//
// # CM's API, as far as public material shows it
//
// Every call is a POST of a JSON object carrying `merchant_token` (a GUID)
// in the body, to {base}/directory, {base}/transaction and {base}/status.
// Sources:
//
//   - CM's developer docs: https://developers.cm.com/identity/docs/idin-directory,
//     .../idin-transaction, .../idin-status and .../technical-implementation
//     (request/response fields, the five statuses, `trxid`/`ec`, the 403/400/
//     500/503 response codes, "personal information is returned only once",
//     "status must be requested within 30 seconds" of the return).
//   - CM's older docs, https://docs.cmtelecom.com/idin/v1.0.0, and clients
//     that used them (github.com/nimbles-nl/cm-telecom, CM's WordPress
//     plugin) for the hosts https://idin.cmtelecom.com/idin/v1.0 (production)
//     and .../idin/v1.0/test (test).
//   - CM's own Magento extension, github.com/cmdisp/idin-magento, whose
//     swagger-generated models (lib/CMGroep/Idin/src/Models) give the error
//     body {"status":int,"message":string,"code":int}, a status request with
//     only `transaction_id`, and `house_number` as a string.
//   - iDIN's gender attribute is an ISO 5218 code (0 unknown, 1 male,
//     2 female, 9 not applicable), per the iDIN attribute reference of
//     brokers that pass it through unchanged (e.g.
//     https://developer.signicat.com/identity-methods/idin/).
//
// Where those sources are silent (CM's error `code` values, whether
// `pending` is ever sent, partial dates of birth, a preferred last name),
// the choice made is noted where it is implemented.
//
// # Things a caller must know
//
// CM returns personal data once: a second Status for a successful
// transaction answers success without attributes (Result.Notice says why).
// CM also withholds the data when Status is asked more than 30 seconds
// after the person returned, so the return page should trigger the status
// call promptly rather than leave it to a slow poller.
package idin
