// Package switches holds what the provider sandboxes share: settings that
// hold for a while (an outage, slowness) and the HTTP endpoint that sets
// them from outside, so a tester can rehearse a provider failure with curl.
package switches

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// Timed is a value that holds until its time is up; the zero value holds
// nothing.
type Timed[T any] struct {
	mu    sync.Mutex
	v     T
	until time.Time
}

// Set makes v hold for d (d <= 0 ends it).
func (t *Timed[T]) Set(v T, d time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.v, t.until = v, time.Now().Add(d)
}

// Get returns the value while it holds, else T's zero value and false.
func (t *Timed[T]) Get() (T, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if time.Now().Before(t.until) {
		return t.v, true
	}
	var zero T
	return zero, false
}

// Delay holds a request for the slowness set in slow, if any; false means
// the client gave up meanwhile (don't answer, don't hold the server).
func Delay(r *http.Request, slow *Timed[time.Duration]) bool {
	d, _ := slow.Get()
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// Handler answers POST {"<field>": value, "seconds": n}: set(value, n
// seconds), then 204. A body that does not decode, or a value valid
// rejects, gets 400 with the expected shape.
func Handler[T any](field string, example T, valid func(T) bool, set func(T, time.Duration)) http.HandlerFunc {
	ex, _ := json.Marshal(example)
	usage := fmt.Sprintf(`want {"%s":%s,"seconds":60}`, field, ex)
	return func(w http.ResponseWriter, r *http.Request) {
		var in map[string]json.RawMessage
		var v T
		var seconds float64
		if json.NewDecoder(r.Body).Decode(&in) != nil || json.Unmarshal(in[field], &v) != nil ||
			json.Unmarshal(in["seconds"], &seconds) != nil || (valid != nil && !valid(v)) {
			http.Error(w, usage, http.StatusBadRequest)
			return
		}
		set(v, time.Duration(seconds*float64(time.Second)))
		w.WriteHeader(http.StatusNoContent)
	}
}
