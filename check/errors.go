package check

// Codes of a check's recorded error.
const (
	// CodeProviderUnavailable: retryable failures outlasted the retry window.
	CodeProviderUnavailable = "provider_unavailable"
	// CodeProviderError: the provider refused the request for good.
	CodeProviderError = "provider_error"
	// CodeProviderNotConfigured: no provider is configured for the type.
	CodeProviderNotConfigured = "provider_not_configured"
	// CodeRetriesExhausted: the step failed after its retries without a
	// provider's answer to name.
	CodeRetriesExhausted = "retries_exhausted"
)

// Error is the `error` object of a check record. Provider and ProviderCode
// name the provider and its own error code when one failed.
type Error struct {
	Code         string `json:"code"`
	Message      string `json:"message"`
	Provider     string `json:"provider,omitempty"`
	ProviderCode string `json:"provider_code,omitempty"`
}
