package api

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store"
	"github.com/kycflow/kycflow/webhook"
)

// Webhooks configures webhook endpoint management.
type Webhooks struct {
	// Cipher seals signing secrets; nil: webhooks are not configured and
	// endpoints cannot be created.
	Cipher *webhook.Cipher
	// Guard vets endpoint URLs (the worker's guards each delivery too).
	Guard *webhook.Guard
	// AllowHTTP lets live tenants register http:// URLs (sandbox tenants
	// always may).
	AllowHTTP bool
}

// maxEventNames bounds an endpoint's events list.
const maxEventNames = 64

type endpointJSON struct {
	ID          uuid.UUID `json:"id"`
	URL         string    `json:"url"`
	Events      []string  `json:"events"`
	Description *string   `json:"description"`
	// Status is enabled or disabled (a 410 from the receiver disables).
	Status         string  `json:"status"`
	DisabledReason *string `json:"disabled_reason"`
	// PreviousSecretExpiresAt: until then the secret rotated out signs too.
	PreviousSecretExpiresAt *Time `json:"previous_secret_expires_at"`
	CreatedAt               Time  `json:"created_at"`
	UpdatedAt               Time  `json:"updated_at"`
	// Secret is shown once: when created and when rotated.
	Secret string `json:"secret,omitempty"`
}

func toEndpoint(e store.Endpoint) endpointJSON {
	out := endpointJSON{ID: e.ID, URL: e.URL, Events: e.Events, Description: e.Description, Status: "enabled",
		DisabledReason: e.DisabledReason, CreatedAt: Time(e.CreatedAt), UpdatedAt: Time(e.UpdatedAt)}
	if e.DisabledAt != nil {
		out.Status = "disabled"
	}
	if e.PreviousExpiresAt != nil && e.PreviousExpiresAt.After(time.Now()) {
		out.PreviousSecretExpiresAt = optTime(e.PreviousExpiresAt)
	}
	return out
}

var errWebhooksOff = newError(http.StatusServiceUnavailable,
	"Webhooks are not configured on this server: its operator has to set WEBHOOK_SECRET_KEY.")

// parseEndpoint validates a create body; sandbox tenants may use http.
func (s *Server) parseEndpoint(c echo.Context, body *object, sandbox bool) (store.Endpoint, error) {
	var fe fieldErrors
	u := body.str("url", &fe)
	desc := body.str("description", &fe)
	names, _ := body.strings("events", &fe)
	validateField(&fe, "url", u, required)
	if d := desc; d != nil && utf8.RuneCountInString(*d) > webhook.MaxDescription {
		fe.add("description", msg("description", "must not be greater than "+itoa(webhook.MaxDescription)+" characters."))
	}
	events := eventNames(names, &fe)
	if u != nil && !fe.has("url") {
		if err := s.hooks.Guard.ForTenant(sandbox).CheckURL(c.Request().Context(), *u, sandbox || s.hooks.AllowHTTP); err != nil {
			var ue *webhook.URLError
			if !errors.As(err, &ue) {
				return store.Endpoint{}, err
			}
			fe.add("url", msg("url", ue.Reason))
		}
	}
	if !fe.empty() {
		return store.Endpoint{}, validationError(&fe)
	}
	return store.Endpoint{URL: *u, Events: events, Description: desc}, nil
}

// eventNames validates an endpoint's event list (check.EventNames).
func eventNames(names []string, fe *fieldErrors) []string {
	if fe.has("events") || slices.ContainsFunc(fe.order, func(f string) bool { return strings.HasPrefix(f, "events.") }) {
		return nil
	}
	if len(names) > maxEventNames {
		fe.add("events", msg("events", "must not have more than "+itoa(maxEventNames)+" items."))
		return nil
	}
	out, bad := check.EventNames(names)
	if bad >= 0 {
		field := "events." + itoa(bad)
		fe.add(field, "The "+field+" field "+quoteParam(names[bad])+" is not an event type: use one of the documented types, check.* or *.")
	}
	return out
}

func (s *Server) createWebhook(c echo.Context) error {
	if s.hooks.Cipher == nil {
		return errWebhooksOff
	}
	body, err := readBody(c)
	if err != nil {
		return err
	}
	p := principal(c)
	sandbox, err := s.store.IsSandbox(c.Request().Context(), p.TenantID)
	if err != nil {
		return err
	}
	e, err := s.parseEndpoint(c, body, sandbox)
	if err != nil {
		return err
	}
	secret := webhook.NewSecret()
	e.ID, e.TenantID = store.NewID(), p.TenantID
	e.Secret = s.hooks.Cipher.Seal(secret, e.ID.String())
	e, err = s.store.CreateEndpoint(c.Request().Context(), e)
	if errors.Is(err, store.ErrLimit) {
		var fe fieldErrors
		fe.add("url", "A tenant may have at most "+itoa(webhook.MaxEndpoints)+" webhook endpoints: delete one before adding another.")
		return validationError(&fe)
	}
	if err != nil {
		return err
	}
	out := toEndpoint(e)
	out.Secret = secret
	c.Set(sealAnswer, true)
	return c.JSON(http.StatusCreated, out)
}

func (s *Server) listWebhooks(c echo.Context) error {
	var fe fieldErrors
	fetch := func(q store.PageQuery) (store.Page[store.Endpoint], error) {
		return s.store.ListEndpoints(c.Request().Context(), principal(c).TenantID, q)
	}
	return answerPage(c, pageParams(c, &fe), &fe, fetch, toEndpoint, func(e store.Endpoint) uuid.UUID { return e.ID })
}

func (s *Server) getWebhook(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	e, err := s.store.GetEndpoint(c.Request().Context(), principal(c).TenantID, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toEndpoint(e))
}

func (s *Server) deleteWebhook(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	if err := s.store.DeleteEndpoint(c.Request().Context(), principal(c).TenantID, id); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, messageJSON{Message: "ok"})
}

// rotateSecret gives the endpoint a new secret, shown once; the old one
// keeps signing alongside for 24 hours, so receivers can switch over.
func (s *Server) rotateSecret(c echo.Context) error {
	if s.hooks.Cipher == nil {
		return errWebhooksOff
	}
	id, err := pathID(c)
	if err != nil {
		return err
	}
	secret := webhook.NewSecret()
	e, err := s.store.RotateSecret(c.Request().Context(), principal(c).TenantID, id, s.hooks.Cipher.Seal(secret, id.String()))
	if err != nil {
		return err
	}
	out := toEndpoint(e)
	out.Secret = secret
	c.Set(sealAnswer, true)
	return c.JSON(http.StatusOK, out)
}

type attemptJSON struct {
	Attempt    int     `json:"attempt"`
	At         Time    `json:"at"`
	StatusCode *int    `json:"status_code"`
	DurationMS int     `json:"duration_ms"`
	Error      *string `json:"error"`
	// Response is the start of the receiver's answer (1 KiB at most).
	Response *string `json:"response"`
}

type deliveryJSON struct {
	ID            uuid.UUID       `json:"id"`
	EndpointID    uuid.UUID       `json:"endpoint_id"`
	EventID       uuid.UUID       `json:"event_id"`
	EventType     check.EventType `json:"event_type"`
	Redelivery    bool            `json:"redelivery"`
	Status        webhook.Status  `json:"status"`
	AttemptCount  int             `json:"attempt_count"`
	NextAttemptAt *Time           `json:"next_attempt_at"`
	FinishedAt    *Time           `json:"finished_at"`
	CreatedAt     Time            `json:"created_at"`
	Attempts      []attemptJSON   `json:"attempts"`
}

func toDelivery(d store.Delivery) deliveryJSON {
	out := deliveryJSON{ID: d.ID, EndpointID: d.EndpointID, EventID: d.EventID, EventType: d.EventType, Redelivery: d.Number > 1,
		Status: d.Status, AttemptCount: d.Attempts, FinishedAt: optTime(d.FinishedAt), CreatedAt: Time(d.CreatedAt),
		Attempts: make([]attemptJSON, 0, len(d.Tries))}
	if d.Status == webhook.Retrying {
		out.NextAttemptAt = optTime(d.NextAttemptAt)
	}
	for _, a := range d.Tries {
		aj := attemptJSON{Attempt: a.Attempt, At: Time(a.At), StatusCode: a.StatusCode, DurationMS: a.DurationMS, Error: a.Error}
		if a.Response != nil {
			r := strings.ToValidUTF8(string(a.Response), "\uFFFD")
			aj.Response = &r
		}
		out.Attempts = append(out.Attempts, aj)
	}
	return out
}

func (s *Server) listDeliveries(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	var fe fieldErrors
	fetch := func(q store.PageQuery) (store.Page[store.Delivery], error) {
		return s.store.ListDeliveries(c.Request().Context(), principal(c).TenantID, id, q)
	}
	return answerPage(c, pageParams(c, &fe), &fe, fetch, toDelivery, func(d store.Delivery) uuid.UUID { return d.ID })
}

// redeliver queues the event again: to the endpoint named, or to every
// live endpoint subscribed to its type.
func (s *Server) redeliver(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	body, err := readBody(c)
	if err != nil {
		return err
	}
	var fe fieldErrors
	var endpointID *uuid.UUID
	if v := body.str("endpoint_id", &fe); v != nil {
		eid, perr := uuid.Parse(*v)
		if perr != nil {
			fe.add("endpoint_id", msg("endpoint_id", "must be a valid UUID."))
		}
		endpointID = &eid
	}
	if !fe.empty() {
		return validationError(&fe)
	}
	ds, err := s.store.Redeliver(c.Request().Context(), principal(c).TenantID, id, endpointID)
	switch {
	case errors.Is(err, store.ErrNotFound) && endpointID != nil:
		// The event or the endpoint: say which.
		if _, gerr := s.store.GetEvent(c.Request().Context(), principal(c).TenantID, id); gerr != nil {
			return gerr
		}
		fe.add("endpoint_id", "The selected endpoint id is not one of your webhook endpoints.")
		return validationError(&fe)
	case errors.Is(err, store.ErrConflict):
		if endpointID != nil {
			return newError(http.StatusConflict, "That webhook endpoint is disabled: delete it and register the URL again to receive events.")
		}
		return newError(http.StatusConflict, "No enabled webhook endpoint is subscribed to this event's type; name one with endpoint_id.")
	case err != nil:
		return err
	}
	out := struct {
		Message string         `json:"message"`
		Data    []deliveryJSON `json:"data"`
	}{Message: "Redelivery has been queued."}
	for _, d := range ds {
		out.Data = append(out.Data, toDelivery(d))
	}
	return c.JSON(http.StatusAccepted, out)
}
