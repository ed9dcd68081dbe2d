package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/kycflow/kycflow/check"
)

// DocumentImage is one image of an idscan upload, sealed: only the api and
// the worker, holding the image keys, open it.
type DocumentImage struct {
	N           int    `db:"n"` // within the check; stable (2 per attempt)
	Attempt     int    `db:"attempt"`
	ContentType string `db:"content_type"`
	Bytes       int    `db:"bytes"`
	Width       int    `db:"width"`
	Height      int    `db:"height"`
	Orientation int    `db:"orientation"`
	SHA256      []byte `db:"sha256"`
	KeyID       string `db:"key_id"`
	Sealed      []byte `db:"sealed"`
	// CreatedAt is set by AddDocument.
	CreatedAt time.Time `db:"created_at"`
}

const imageMetaCols = `n, attempt, content_type, bytes, width, height, orientation, sha256, key_id, created_at`

// ImagesPerAttempt bounds the images of one upload (a card's two sides).
const ImagesPerAttempt = 2

// DocumentAttempt is one upload of an idscan check and what became of it.
type DocumentAttempt struct {
	N         int        `db:"n"`
	Status    string     `db:"status"` // check.AttemptReading, AttemptRead, AttemptRetake
	Reason    *string    `db:"reason"` // a retake's (check.Retake…)
	Quality   JSON       `db:"quality"`
	CreatedAt time.Time  `db:"created_at"`
	ReadAt    *time.Time `db:"read_at"`
	Images    int        `db:"images"` // how many it had (kept or erased since)
}

// Data is the attempt as data.attempts shows it.
func (a DocumentAttempt) Data() check.IDScanAttempt {
	return check.IDScanAttempt{N: a.N, Status: a.Status, Reason: a.Reason, Images: a.Images, UploadedAt: a.CreatedAt, ReadAt: a.ReadAt}
}

// AttemptsData is data.attempts.
func AttemptsData(as []DocumentAttempt) []check.IDScanAttempt {
	out := make([]check.IDScanAttempt, len(as))
	for i, a := range as {
		out[i] = a.Data()
	}
	return out
}

// IDScanSettings are a tenant's idscan settings.
type IDScanSettings struct {
	// Typed: whether a typed MRZ is accepted besides photos.
	Typed bool `db:"idscan_typed"`
	// MaxAttempts is how many photos a person may upload for one check.
	MaxAttempts int `db:"idscan_max_attempts"`
	// Retention is how long images are kept after their check ends (0:
	// none after reading).
	Retention time.Duration `db:"image_retention"`
	// Documents are the documents accepted ("P", "ID", "P:NLD"); nil: all.
	Documents pq.StringArray `db:"idscan_documents"`
	// Selfie is whether a selfie follows the document (check.SelfieOff,
	// SelfieOn, SelfieRequired).
	Selfie string `db:"idscan_selfie"`
	// FaceClear and FaceFail are the face match's thresholds, as
	// similarities.
	FaceClear float64 `db:"face_match_clear"`
	FaceFail  float64 `db:"face_match_fail"`
}

// IDScanSettings reads the tenant's idscan settings.
func (s *Store) IDScanSettings(ctx context.Context, tenantID uuid.UUID) (IDScanSettings, error) {
	var v IDScanSettings
	err := s.db.GetContext(ctx, &v, `SELECT idscan_typed, idscan_max_attempts,
		(extract(epoch FROM image_retention) * 1e9)::bigint AS image_retention, idscan_documents,
		idscan_selfie, face_match_clear::float8 AS face_match_clear, face_match_fail::float8 AS face_match_fail FROM tenants WHERE id = $1`, tenantID)
	return v, classify(err)
}

// SetIDScanTyped sets IDScanSettings.Typed (admin tools).
func (s *Store) SetIDScanTyped(ctx context.Context, tenantID uuid.UUID, on bool) error {
	return s.updateTenant(ctx, `UPDATE tenants SET idscan_typed = $2 WHERE id = $1`, tenantID, on)
}

// SetIDScanMaxAttempts sets IDScanSettings.MaxAttempts (admin tools).
func (s *Store) SetIDScanMaxAttempts(ctx context.Context, tenantID uuid.UUID, n int) error {
	if n < 1 || n > 20 {
		return fmt.Errorf("idscan attempts %d: want 1 to 20", n)
	}
	return s.updateTenant(ctx, `UPDATE tenants SET idscan_max_attempts = $2 WHERE id = $1`, tenantID, n)
}

// SetImageRetention sets IDScanSettings.Retention (admin tools); it
// applies to every kept image, those of checks already ended included.
func (s *Store) SetImageRetention(ctx context.Context, tenantID uuid.UUID, d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("image retention %s: not negative", d)
	}
	return s.updateTenant(ctx, `UPDATE tenants SET image_retention = make_interval(secs => $2) WHERE id = $1`, tenantID, d.Seconds())
}

// SetIDScanDocuments sets IDScanSettings.Documents (admin tools; nil: all).
func (s *Store) SetIDScanDocuments(ctx context.Context, tenantID uuid.UUID, docs []string) error {
	var v any
	if docs != nil {
		v = pq.StringArray(docs)
	}
	return s.updateTenant(ctx, `UPDATE tenants SET idscan_documents = $2 WHERE id = $1`, tenantID, v)
}

// ErrAttemptsUsed: AddDocument for a link whose photo attempts are all
// used (the check ends with the last one's outcome).
var ErrAttemptsUsed = errors.New("store: every photo attempt of this link is used")

// AddDocument takes an upload on the open idscan link of ref's check (as
// LinkByToken found it): its images, sealed for that check (AddDocument
// numbers them), are recorded with the attempt, as `reading`, and the
// workflow is told through the outbox — one transaction. A closed link
// gives a *LinkClosedError; a link whose attempts are used,
// ErrAttemptsUsed.
func (s *Store) AddDocument(ctx context.Context, ref check.Ref, images []DocumentImage) (DocumentAttempt, error) {
	var a DocumentAttempt
	if len(images) == 0 || len(images) > ImagesPerAttempt {
		return a, fmt.Errorf("store: %d images in one upload", len(images))
	}
	ids := linkIDs{TenantID: ref.TenantID, CheckID: ref.CheckID}
	err := s.inTenant(ctx, ids.TenantID, func(tx *sqlx.Tx) error {
		at := now()
		c, err := lockOpenLink(ctx, tx, ids, at)
		if err != nil {
			return err
		}
		var used, allowed int
		if err := tx.QueryRowxContext(ctx, `SELECT (SELECT count(*) FROM document_attempts WHERE tenant_id = $1 AND check_id = $2),
			(SELECT idscan_max_attempts FROM tenants WHERE id = $1)`, ids.TenantID, ids.CheckID).Scan(&used, &allowed); err != nil {
			return err
		}
		if used >= allowed {
			return ErrAttemptsUsed
		}
		a = DocumentAttempt{N: used + 1, Status: check.AttemptReading, CreatedAt: at, Images: len(images)}
		if _, err := tx.ExecContext(ctx, `INSERT INTO document_attempts (tenant_id, check_id, n, status, created_at) VALUES ($1, $2, $3, $4, $5)`,
			ids.TenantID, ids.CheckID, a.N, a.Status, at); err != nil {
			return err
		}
		for i, im := range images {
			im.N, im.Attempt = ImagesPerAttempt*(a.N-1)+i+1, a.N
			if _, err := tx.ExecContext(ctx, `INSERT INTO document_images (tenant_id, check_id, n, attempt, content_type, bytes, width, height,
				orientation, sha256, key_id, sealed, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
				ids.TenantID, ids.CheckID, im.N, im.Attempt, im.ContentType, im.Bytes, im.Width, im.Height, im.Orientation, im.SHA256, im.KeyID, im.Sealed, at); err != nil {
				return err
			}
		}
		if _, err := showAttempts(ctx, tx, ref); err != nil {
			return err
		}
		return enqueue(ctx, tx, c.Ref(), ActionDocument)
	})
	if err == nil {
		s.wakeRelay()
	}
	return a, err
}

// DocumentAttempts lists a check's uploads, oldest first.
func (s *Store) DocumentAttempts(ctx context.Context, ref check.Ref) ([]DocumentAttempt, error) {
	var out []DocumentAttempt
	err := s.inTenant(ctx, ref.TenantID, func(tx *sqlx.Tx) (err error) {
		out, err = documentAttempts(ctx, tx, ref)
		return err
	})
	return out, err
}

func documentAttempts(ctx context.Context, tx *sqlx.Tx, ref check.Ref) ([]DocumentAttempt, error) {
	var out []DocumentAttempt
	err := tx.SelectContext(ctx, &out, `SELECT a.n, a.status, a.reason, a.quality, a.created_at, a.read_at,
			(SELECT count(*) FROM document_images i WHERE i.tenant_id = a.tenant_id AND i.check_id = a.check_id AND i.attempt = a.n) AS images
			FROM document_attempts a WHERE a.tenant_id = $1 AND a.check_id = $2 ORDER BY a.n`, ref.TenantID, ref.CheckID)
	return out, err
}

// showAttempts writes the uploads so far into the data of a check still
// awaiting input (check.IDScanWaiting), in the transaction that changed
// them; a check with its result is left as it is. It answers how many
// uploads are still unread.
func showAttempts(ctx context.Context, tx *sqlx.Tx, ref check.Ref) (unread int, err error) {
	as, err := documentAttempts(ctx, tx, ref)
	if err != nil {
		return 0, err
	}
	var allowed int
	if err := tx.GetContext(ctx, &allowed, `SELECT idscan_max_attempts FROM tenants WHERE id = $1`, ref.TenantID); err != nil {
		return 0, err
	}
	selfies, err := selfieAttempts(ctx, tx, ref)
	if err != nil {
		return 0, err
	}
	b, err := json.Marshal(check.IDScanWaiting{Source: check.SourcePhoto, Attempts: AttemptsData(as), AttemptsLeft: max(0, allowed-len(as)),
		SelfieAttempts: SelfieData(selfies)}) // omitted while there are none
	if err != nil {
		return 0, err
	}
	for _, a := range as {
		if a.Status == check.AttemptReading {
			unread++
		}
	}
	for _, a := range selfies {
		if a.Status == check.SelfieReading {
			unread++
		}
	}
	_, err = tx.ExecContext(ctx, `UPDATE checks SET data = $3, updated_at = $4 WHERE tenant_id = $1 AND id = $2 AND status = 'awaiting_input'`,
		ref.TenantID, ref.CheckID, JSON(b), now())
	return unread, err
}

// UnreadDocuments counts the check's uploads still `reading`, selfies'
// included.
func (s *Store) UnreadDocuments(ctx context.Context, ref check.Ref) (int, error) {
	var n int
	err := s.inTenant(ctx, ref.TenantID, func(tx *sqlx.Tx) error {
		return tx.GetContext(ctx, &n, `SELECT (SELECT count(*) FROM document_attempts WHERE tenant_id = $1 AND check_id = $2 AND status = 'reading')
			+ (SELECT count(*) FROM selfie_attempts WHERE tenant_id = $1 AND check_id = $2 AND status = 'reading')`,
			ref.TenantID, ref.CheckID)
	})
	return n, err
}

// NextDocument is the check's oldest upload still `reading`, with its
// images (sealed); ErrNotFound when none is.
func (s *Store) NextDocument(ctx context.Context, ref check.Ref) (DocumentAttempt, []DocumentImage, error) {
	var a DocumentAttempt
	var images []DocumentImage
	err := s.inTenant(ctx, ref.TenantID, func(tx *sqlx.Tx) error {
		if err := tx.GetContext(ctx, &a, `SELECT n, status, reason, quality, created_at, read_at, 0 AS images FROM document_attempts
			WHERE tenant_id = $1 AND check_id = $2 AND status = 'reading' ORDER BY n LIMIT 1`, ref.TenantID, ref.CheckID); err != nil {
			return err
		}
		return tx.SelectContext(ctx, &images, `SELECT `+imageMetaCols+`, sealed FROM document_images
			WHERE tenant_id = $1 AND check_id = $2 AND attempt = $3 ORDER BY n`, ref.TenantID, ref.CheckID, a.N)
	})
	a.Images = len(images)
	return a, images, err
}

// FinishDocument records an upload's outcome (check.AttemptRead or
// AttemptRetake, with a retake's reason and what the reader measured);
// erase deletes its images (a tenant that keeps none). An attempt no
// longer `reading` is left as it is: a repeated call changes nothing.
func (s *Store) FinishDocument(ctx context.Context, ref check.Ref, n int, status string, reason *string, quality JSON, erase bool) (unread int, err error) {
	err = s.inTenant(ctx, ref.TenantID, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, `WITH done AS (
				UPDATE document_attempts SET status = $4, reason = $5, quality = $6, read_at = $7
				WHERE tenant_id = $1 AND check_id = $2 AND n = $3 AND status = 'reading' RETURNING n)
			DELETE FROM document_images WHERE $8 AND tenant_id = $1 AND check_id = $2 AND attempt IN (SELECT n FROM done)`,
			ref.TenantID, ref.CheckID, n, status, reason, quality, now(), erase)
		if err != nil {
			return err
		}
		unread, err = showAttempts(ctx, tx, ref)
		return err
	})
	return unread, err
}

// CheckImages lists the images kept of a check of the principal's tenant
// (without their bytes), and until when they are kept (nil while the
// check runs: retention runs from its end, or a failed one's last
// change). ErrNotFound for a check that is not the tenant's.
func (s *Store) CheckImages(ctx context.Context, p Principal, checkID uuid.UUID) ([]DocumentImage, *time.Time, error) {
	var out []DocumentImage
	var until *time.Time
	err := s.inTenant(ctx, p.TenantID, func(tx *sqlx.Tx) error {
		if err := tx.GetContext(ctx, &until, `SELECT coalesce(c.completed_at, CASE WHEN c.status = 'failed' THEN c.updated_at END) + t.image_retention
			FROM checks c JOIN tenants t ON t.id = c.tenant_id
			WHERE c.tenant_id = $1 AND c.id = $2`, p.TenantID, checkID); err != nil {
			return err
		}
		return tx.SelectContext(ctx, &out, `SELECT `+imageMetaCols+` FROM document_images WHERE tenant_id = $1 AND check_id = $2 ORDER BY n`, p.TenantID, checkID)
	})
	return out, until, err
}

// CheckImage reads image n of a check of the principal's tenant, sealed,
// and records in the audit log who viewed it. ErrNotFound when the check
// is not the tenant's or the image is not kept (never uploaded, or
// erased).
func (s *Store) CheckImage(ctx context.Context, p Principal, checkID uuid.UUID, n int) (DocumentImage, error) {
	var im DocumentImage
	err := s.inTenant(ctx, p.TenantID, func(tx *sqlx.Tx) error {
		if err := tx.GetContext(ctx, &im, `SELECT `+imageMetaCols+`, sealed FROM document_images WHERE tenant_id = $1 AND check_id = $2 AND n = $3`,
			p.TenantID, checkID, n); err != nil {
			return err
		}
		return audit(ctx, tx, p, "image.viewed", "check", checkID, map[string]int{"image": n})
	})
	return im, err
}

// EraseDocumentImages deletes every tenant's images past their retention
// (the housekeeping schedule's).
func (s *Store) EraseDocumentImages(ctx context.Context) (int64, error) {
	var n int64
	err := s.db.GetContext(ctx, &n, `SELECT document_images_erase()`)
	return n, classify(err)
}
