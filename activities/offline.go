package activities

// OfflineResult is what the offline step of a provider check (coc, vat:
// format and checksum, before any call) tells the workflow: the check is
// finished (Done, with its verdict), or the provider must be asked.
type OfflineResult struct {
	Done   bool
	Result CheckResult
}
