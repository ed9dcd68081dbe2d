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

// IDScanSubmission is what the verification page stores for an idscan link.
type IDScanSubmission struct {
	MRZ string `json:"mrz"`
}
