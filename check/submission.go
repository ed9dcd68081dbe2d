package check

import "encoding/json"

// What a person submits on a verification link: the page stores it on the
// link, the check's verify step reads it.

// IDINSubmission is the idin link's submission: the bank transaction the
// person returned from, then (kept by IDINVerify, as the broker discloses
// the data only once) the broker's result.
type IDINSubmission struct {
	TransactionID string `json:"transaction_id"`
	EntranceCode  string `json:"entrance_code,omitempty"`
	Returned      bool   `json:"returned,omitempty"`
	// Result is the broker's answer (providers/idin.Result) as the
	// activity kept it.
	Result json.RawMessage `json:"result,omitempty"`
}

// IDScanSubmission is what the verification page stores for an idscan
// link: the typed MRZ, sealed (documents.Keys.SealMRZ) — it holds the
// personal number (a Dutch passport's BSN), which is never written in
// clear, not even for the moment until the check reads it (PostgreSQL's
// WAL and dead rows keep what was written).
type IDScanSubmission struct {
	KeyID  string `json:"key_id,omitempty"`
	Sealed []byte `json:"sealed,omitempty"`
	// MRZ is a submission of before the sealing, read as it was.
	MRZ string `json:"mrz,omitempty"`
}
