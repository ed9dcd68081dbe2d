package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/kycflow/kycflow/check"
)

// SelfieAttempt is one selfie attempt of an idscan check: its challenge,
// drawn by the worker, and what became of it.
type SelfieAttempt struct {
	N          int            `db:"n"`
	Steps      pq.StringArray `db:"steps"`
	Nonce      string         `db:"nonce"`
	Status     string         `db:"status"` // check.SelfieAwaiting, SelfieReading, SelfieDone, SelfieRetake
	Reason     *string        `db:"reason"`
	CreatedAt  time.Time      `db:"created_at"`
	UploadedAt *time.Time     `db:"uploaded_at"`
	ReadAt     *time.Time     `db:"read_at"`
	Frames     int            `db:"frames"` // kept (erased frames are not counted)
}

// selfieCols are SelfieAttempt's columns but frames.
const selfieCols = `n, steps, nonce, status, reason, created_at, uploaded_at, read_at`

// Data is the attempt as data.selfie_attempts shows it (no nonce).
func (a SelfieAttempt) Data() check.SelfieAttempt {
	return check.SelfieAttempt{N: a.N, Steps: a.Steps, Status: a.Status, Reason: a.Reason, Frames: a.Frames, UploadedAt: a.UploadedAt, ReadAt: a.ReadAt}
}

// SelfieData is data.selfie_attempts.
func SelfieData(as []SelfieAttempt) []check.SelfieAttempt {
	out := make([]check.SelfieAttempt, len(as))
	for i, a := range as {
		out[i] = a.Data()
	}
	return out
}

// Challenge is a selfie attempt's challenge: the steps and the nonce the
// upload answers with.
type Challenge struct {
	Steps []string
	Nonce string
}

// MaxSelfieFrames bounds one selfie upload's frames.
const MaxSelfieFrames = 8

// Errors of AddSelfie.
var (
	// ErrNoChallenge: no selfie is awaited (the document is not read yet,
	// the selfie is being read, or every attempt is used).
	ErrNoChallenge = errors.New("store: no selfie challenge awaits frames")
	// ErrWrongNonce: the upload answers another attempt's challenge.
	ErrWrongNonce = errors.New("store: the frames answer another challenge")
)

// SetIDScanSelfie sets IDScanSettings.Selfie (admin tools).
func (s *Store) SetIDScanSelfie(ctx context.Context, tenantID uuid.UUID, v string) error {
	return s.updateTenant(ctx, `UPDATE tenants SET idscan_selfie = $2 WHERE id = $1`, tenantID, v)
}

// SetFaceThresholds sets IDScanSettings.FaceClear and FaceFail (admin
// tools): similarities, fail no higher than clear.
func (s *Store) SetFaceThresholds(ctx context.Context, tenantID uuid.UUID, clear, fail float64) error {
	if clear < 0 || clear > 1 || fail < 0 || fail > clear {
		return fmt.Errorf("face match thresholds clear %.3f, fail %.3f: want 0 ≤ fail ≤ clear ≤ 1", clear, fail)
	}
	res, err := s.db.ExecContext(ctx, `UPDATE tenants SET face_match_clear = $2, face_match_fail = $3 WHERE id = $1`, tenantID, clear, fail)
	if err != nil {
		return classify(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// ReadForSelfie records a document upload read while a selfie is still to
// come: the attempt `read`, the check's result so far sealed beside it,
// and the first selfie challenge drawn — one transaction. An attempt no
// longer `reading` is left as it is (a repeated call changes nothing).
func (s *Store) ReadForSelfie(ctx context.Context, ref check.Ref, n int, quality JSON, draftKey string, draft []byte, c Challenge) error {
	return s.inTenant(ctx, ref.TenantID, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE document_attempts SET status = 'read', quality = $4, read_at = $5, draft_key_id = $6, draft = $7
			WHERE tenant_id = $1 AND check_id = $2 AND n = $3 AND status = 'reading'`, ref.TenantID, ref.CheckID, n, quality, now(), draftKey, draft)
		if err != nil {
			return err
		}
		if k, _ := res.RowsAffected(); k == 0 {
			return nil
		}
		if err := insertChallenge(ctx, tx, ref, c); err != nil {
			return err
		}
		_, err = showAttempts(ctx, tx, ref)
		return err
	})
}

// insertChallenge draws the next selfie attempt, unless one is awaited or
// being read already (a second document read while the selfie is awaited
// keeps the challenge the person has).
func insertChallenge(ctx context.Context, tx *sqlx.Tx, ref check.Ref, c Challenge) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO selfie_attempts (tenant_id, check_id, n, steps, nonce, status, created_at)
		SELECT $1, $2, coalesce(max(n), 0) + 1, $3, $4, 'awaiting', $5 FROM selfie_attempts WHERE tenant_id = $1 AND check_id = $2
		HAVING count(*) FILTER (WHERE status IN ('awaiting', 'reading')) = 0`,
		ref.TenantID, ref.CheckID, pq.StringArray(c.Steps), c.Nonce, now())
	return err
}

// Draft is the sealed result of the check's read document awaiting its
// selfie, and the key that sealed it; ErrNotFound when none is kept.
func (s *Store) Draft(ctx context.Context, ref check.Ref) (keyID string, sealed []byte, err error) {
	err = s.inTenant(ctx, ref.TenantID, func(tx *sqlx.Tx) error {
		return tx.QueryRowxContext(ctx, `SELECT draft_key_id, draft FROM document_attempts
			WHERE tenant_id = $1 AND check_id = $2 AND status = 'read' AND draft IS NOT NULL ORDER BY n DESC LIMIT 1`,
			ref.TenantID, ref.CheckID).Scan(&keyID, &sealed)
	})
	return keyID, sealed, classify(err)
}

// ReadDocument is the images of the check's document upload that was
// read (the selfie's portrait is found on them), sealed; ErrNotFound when
// none is kept.
func (s *Store) ReadDocument(ctx context.Context, ref check.Ref) ([]DocumentImage, error) {
	var images []DocumentImage
	err := s.inTenant(ctx, ref.TenantID, func(tx *sqlx.Tx) error {
		return tx.SelectContext(ctx, &images, `SELECT `+imageMetaCols+`, sealed FROM document_images
			WHERE tenant_id = $1 AND check_id = $2 AND attempt = (SELECT max(n) FROM document_attempts
				WHERE tenant_id = $1 AND check_id = $2 AND status = 'read') ORDER BY n`, ref.TenantID, ref.CheckID)
	})
	if err == nil && len(images) == 0 {
		err = ErrNotFound
	}
	return images, err
}

// SelfieAttempts lists a check's selfie attempts, oldest first.
func (s *Store) SelfieAttempts(ctx context.Context, ref check.Ref) ([]SelfieAttempt, error) {
	var out []SelfieAttempt
	err := s.inTenant(ctx, ref.TenantID, func(tx *sqlx.Tx) (err error) {
		out, err = selfieAttempts(ctx, tx, ref)
		return err
	})
	return out, err
}

func selfieAttempts(ctx context.Context, tx *sqlx.Tx, ref check.Ref) ([]SelfieAttempt, error) {
	var out []SelfieAttempt
	err := tx.SelectContext(ctx, &out, `SELECT `+selfieCols+`,
			(SELECT count(*) FROM selfie_frames f WHERE f.tenant_id = a.tenant_id AND f.check_id = a.check_id AND f.attempt = a.n) AS frames
			FROM selfie_attempts a WHERE a.tenant_id = $1 AND a.check_id = $2 ORDER BY a.n`, ref.TenantID, ref.CheckID)
	return out, err
}

// AddSelfie takes a selfie's frames on the open idscan link of ref's
// check: they answer the awaiting attempt's challenge (its nonce), are
// recorded sealed, the attempt becomes `reading` and the workflow is told
// through the outbox — one transaction. A closed link gives a
// *LinkClosedError; no awaiting attempt ErrNoChallenge; another nonce
// ErrWrongNonce.
func (s *Store) AddSelfie(ctx context.Context, ref check.Ref, nonce string, frames []DocumentImage) (SelfieAttempt, error) {
	var a SelfieAttempt
	if len(frames) == 0 || len(frames) > MaxSelfieFrames {
		return a, fmt.Errorf("store: %d frames in one selfie", len(frames))
	}
	ids := linkIDs{TenantID: ref.TenantID, CheckID: ref.CheckID}
	err := s.inTenant(ctx, ids.TenantID, func(tx *sqlx.Tx) error {
		at := now()
		c, err := lockOpenLink(ctx, tx, ids, at)
		if err != nil {
			return err
		}
		err = tx.GetContext(ctx, &a, `SELECT `+selfieCols+`, 0 AS frames FROM selfie_attempts
			WHERE tenant_id = $1 AND check_id = $2 AND status = 'awaiting' ORDER BY n DESC LIMIT 1`, ids.TenantID, ids.CheckID)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return ErrNoChallenge
		case err != nil:
			return err
		case a.Nonce != nonce:
			return ErrWrongNonce
		}
		for i, f := range frames {
			if _, err := tx.ExecContext(ctx, `INSERT INTO selfie_frames (tenant_id, check_id, attempt, n, content_type, bytes, width, height,
				orientation, sha256, key_id, sealed, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
				ids.TenantID, ids.CheckID, a.N, i+1, f.ContentType, f.Bytes, f.Width, f.Height, f.Orientation, f.SHA256, f.KeyID, f.Sealed, at); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE selfie_attempts SET status = 'reading', uploaded_at = $4 WHERE tenant_id = $1 AND check_id = $2 AND n = $3`,
			ids.TenantID, ids.CheckID, a.N, at); err != nil {
			return err
		}
		a.Status, a.UploadedAt, a.Frames = check.SelfieReading, &at, len(frames)
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

// NextSelfie is the check's selfie attempt being read, with its frames
// (sealed) in their order; ErrNotFound when none is.
func (s *Store) NextSelfie(ctx context.Context, ref check.Ref) (SelfieAttempt, []DocumentImage, error) {
	var a SelfieAttempt
	var frames []DocumentImage
	err := s.inTenant(ctx, ref.TenantID, func(tx *sqlx.Tx) error {
		if err := tx.GetContext(ctx, &a, `SELECT `+selfieCols+`, 0 AS frames FROM selfie_attempts
			WHERE tenant_id = $1 AND check_id = $2 AND status = 'reading' ORDER BY n LIMIT 1`, ref.TenantID, ref.CheckID); err != nil {
			return err
		}
		// A frame's row has an image's columns (its n within the attempt).
		return tx.SelectContext(ctx, &frames, `SELECT `+imageMetaCols+`, sealed
			FROM selfie_frames WHERE tenant_id = $1 AND check_id = $2 AND attempt = $3 ORDER BY n`, ref.TenantID, ref.CheckID, a.N)
	})
	a.Frames = len(frames)
	return a, frames, classify(err)
}

// FinishSelfie records a selfie attempt's outcome: check.SelfieDone, or
// SelfieRetake with its reason and, when another attempt is allowed, the
// next challenge. erase deletes the attempt's frames and the document's
// images (a tenant that keeps none); done clears the draft. An attempt no
// longer `reading` is left as it is.
func (s *Store) FinishSelfie(ctx context.Context, ref check.Ref, n int, status string, reason *string, next *Challenge, erase bool) error {
	return s.inTenant(ctx, ref.TenantID, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE selfie_attempts SET status = $4, reason = $5, read_at = $6
			WHERE tenant_id = $1 AND check_id = $2 AND n = $3 AND status = 'reading'`, ref.TenantID, ref.CheckID, n, status, reason, now())
		if err != nil {
			return err
		}
		if k, _ := res.RowsAffected(); k == 0 {
			return nil
		}
		if next != nil {
			if err := insertChallenge(ctx, tx, ref, *next); err != nil {
				return err
			}
		}
		if erase {
			if _, err := tx.ExecContext(ctx, `DELETE FROM selfie_frames WHERE tenant_id = $1 AND check_id = $2 AND attempt = $3`, ref.TenantID, ref.CheckID, n); err != nil {
				return err
			}
		}
		if next == nil {
			if _, err := tx.ExecContext(ctx, `UPDATE document_attempts SET draft = NULL, draft_key_id = NULL WHERE tenant_id = $1 AND check_id = $2 AND draft IS NOT NULL`,
				ref.TenantID, ref.CheckID); err != nil {
				return err
			}
			if erase {
				if _, err := tx.ExecContext(ctx, `DELETE FROM document_images WHERE tenant_id = $1 AND check_id = $2`, ref.TenantID, ref.CheckID); err != nil {
					return err
				}
			}
		}
		_, err = showAttempts(ctx, tx, ref)
		return err
	})
}

// SelfieFrame reads frame n of selfie attempt a of a check of the
// principal's tenant, sealed, and records in the audit log who viewed
// it. ErrNotFound when the check is not the tenant's or the frame is not
// kept.
func (s *Store) SelfieFrame(ctx context.Context, p Principal, checkID uuid.UUID, a, n int) (DocumentImage, error) {
	var im DocumentImage
	err := s.inTenant(ctx, p.TenantID, func(tx *sqlx.Tx) error {
		if err := tx.GetContext(ctx, &im, `SELECT `+imageMetaCols+`, sealed FROM selfie_frames
			WHERE tenant_id = $1 AND check_id = $2 AND attempt = $3 AND n = $4`, p.TenantID, checkID, a, n); err != nil {
			return err
		}
		return audit(ctx, tx, p, "image.viewed", "check", checkID, map[string]int{"selfie": a, "frame": n})
	})
	return im, err
}
