package check

import "github.com/google/uuid"

// Ref names a check and its subject: all a workflow carries (ids, never
// personal data). Its JSON is the outbox payload and the workflow input,
// so its field names stay as they are.
type Ref struct {
	TenantID    uuid.UUID `json:"tenant_id"`
	CheckID     uuid.UUID `json:"check_id"`
	SubjectKind Kind      `json:"subject_kind"`
	SubjectID   uuid.UUID `json:"subject_id"`
	Type        Type      `json:"type"`
}
