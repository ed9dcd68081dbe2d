// Package docs carries the documents the service itself serves: the
// OpenAPI description of its API (GET /api/v1/openapi.yaml).
package docs

import _ "embed"

// OpenAPI is docs/openapi.yaml, the API's contract.
//
//go:embed openapi.yaml
var OpenAPI []byte
