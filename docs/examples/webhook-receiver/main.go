// Command webhook-receiver is a minimal kycflow webhook receiver: it checks
// each delivery's Kycflow-Signature before trusting it. Standard library
// only; copy it into your service.
//
//	KYCFLOW_WEBHOOK_SECRET=whsec_… ADDR=127.0.0.1:9000 go run .
package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// verify checks a Kycflow-Signature header ("t=<unix seconds>,v1=<hex>",
// with one v1 per signing secret during a rotation) against the raw body.
func verify(header string, body []byte, secret string, now time.Time) bool {
	var ts string
	var sigs []string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sigs = append(sigs, v)
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return false
	}
	// Reject old (replayed) deliveries: 5 minutes of tolerance.
	if d := now.Sub(time.Unix(sec, 0)); d > 5*time.Minute || d < -5*time.Minute {
		return false
	}
	mac := hmac.New(sha256.New, []byte(secret)) // the whole whsec_… string is the key
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, s := range sigs {
		if got, err := hex.DecodeString(s); err == nil && hmac.Equal(got, want) {
			return true
		}
	}
	return false
}

func main() {
	secret := os.Getenv("KYCFLOW_WEBHOOK_SECRET")
	http.HandleFunc("POST /", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil || !verify(r.Header.Get("Kycflow-Signature"), body, secret, time.Now()) {
			http.Error(w, "bad signature", http.StatusBadRequest)
			return
		}
		var event struct {
			ID   string          `json:"id"`
			Type string          `json:"type"`
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(body, &event); err != nil {
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		// Deliveries may repeat (a retry after a lost answer): act once per
		// event id. Answer 2xx quickly; do slow work afterwards.
		fmt.Println("verified", event.ID, event.Type)
		w.WriteHeader(http.StatusNoContent)
	})
	log.Fatal(http.ListenAndServe(os.Getenv("ADDR"), nil))
}
