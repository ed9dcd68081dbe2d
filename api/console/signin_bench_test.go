package console_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kycflow/kycflow/api/console"
	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/signin"
	"github.com/kycflow/kycflow/store"
)

// Sign-ins as an attacker sends them, through the console's handler:
// what a burst of 100 at once costs the process in memory (each password
// check is an argon2id hash of 19 MiB), and how long a wrong sign-in
// takes for an address with an active account, none, an invited one and
// a disabled one (they must not tell apart).
// Run: go test -run '^$' -bench SignIn -benchtime 20x ./api/console/

var (
	signinOnce sync.Once
	signinErr  error
	signinEnv  struct {
		handler http.Handler
		host    string
	}
)

func signinSeed(b *testing.B) {
	signinOnce.Do(func() { signinErr = signinSeedOnce() })
	if signinErr != nil {
		b.Fatal(signinErr)
	}
}

func signinSeedOnce() error {
	ctx := context.Background()
	c, err := benchDatabase()
	if err != nil {
		return err
	}
	admin, err := store.Open(ctx, c.DSN("postgres", "kycflow"), 2)
	if err != nil {
		return err
	}
	defer admin.Close()
	signinEnv.host = "signin.bench"
	tn, _, err := admin.CreateTenant(ctx, "Sign-in bench", []string{signinEnv.host}, false)
	if err != nil {
		return err
	}
	app, err := store.Open(ctx, c.DSN(store.AppRole, "kycflow"), 16)
	if err != nil {
		return err
	}
	raw := make([]byte, 32)
	rand.Read(raw)
	key, err := signin.NewKey(raw)
	if err != nil {
		return err
	}
	for _, email := range []string{"active@bench.test", "invited@bench.test", "disabled@bench.test"} {
		_, inv, _ := key.NewToken()
		if _, err := admin.CreateStaff(ctx, tn.ID, email, check.RoleReviewer, inv); err != nil {
			return err
		}
		if email == "invited@bench.test" {
			continue
		}
		pw, err := key.HashPassword(ctx, "the account's own long password")
		if err != nil {
			return err
		}
		_, ses, _ := key.NewToken()
		if _, err := app.AcceptInvitation(ctx, tn.ID, inv, store.Enrolment{PasswordHash: pw, TOTPKeyID: key.ID(), TOTPSealed: make([]byte, 60),
			TOTPStep: signin.Step(time.Now()), Session: store.NewSession{TokenHash: ses, CSRF: "c"}}); err != nil {
			return err
		}
	}
	if _, err := admin.DisableStaff(ctx, tn.ID, "disabled@bench.test"); err != nil {
		return err
	}
	pub, _ := url.Parse("https://" + signinEnv.host)
	signinEnv.handler, err = console.New(console.Config{Store: app, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Key: hex.EncodeToString(raw), PublicURL: pub})
	return err
}

var clients atomic.Uint32

// signInOnce posts one wrong sign-in for email from a client address of
// its own (so the lock-out never stops it) and returns the status.
func signInOnce(b *testing.B, email, password string) int {
	n := clients.Add(1)
	client := netip.AddrFrom4([4]byte{10, byte(n >> 16), byte(n >> 8), byte(n)})
	form := url.Values{"csrf": {strings.Repeat("c", 43)}, "email": {email}, "password": {password}, "code": {"000000"}}
	req := httptest.NewRequest(http.MethodPost, "/console/sign-in", strings.NewReader(form.Encode()))
	req.Host = signinEnv.host
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://"+signinEnv.host)
	req.AddCookie(&http.Cookie{Name: "__Host-kycflow-form", Value: strings.Repeat("c", 43)})
	req = req.WithContext(signin.WithClient(req.Context(), client))
	rec := httptest.NewRecorder()
	signinEnv.handler.ServeHTTP(rec, req)
	return rec.Code
}

// 100 sign-ins at once, half for an address with an account, each with a
// password of the longest length taken: the heap's peak while they run
// (sampled), and how many were refused as busy (503).
func BenchmarkSignInBurst(b *testing.B) {
	signinSeed(b)
	var peak uint64
	busy := 0
	for b.Loop() {
		runtime.GC()
		stop := make(chan struct{})
		sampled := make(chan uint64)
		go func() {
			var m runtime.MemStats
			var top uint64
			for {
				runtime.ReadMemStats(&m)
				top = max(top, m.HeapInuse)
				select {
				case <-stop:
					sampled <- top
					return
				case <-time.After(2 * time.Millisecond):
				}
			}
		}()
		var wg sync.WaitGroup
		var refused atomic.Int32
		for i := range 100 {
			email := "active@bench.test"
			if i%2 == 1 {
				email = fmt.Sprintf("stranger%d@bench.test", i)
			}
			wg.Go(func() {
				if signInOnce(b, email, strings.Repeat("p", signin.MaxPasswordLength)) == http.StatusServiceUnavailable {
					refused.Add(1)
				}
			})
		}
		wg.Wait()
		close(stop)
		peak = max(peak, <-sampled)
		busy += int(refused.Load())
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(busy)/float64(b.N), "busy/burst")
}

// A wrong sign-in, one at a time, for each kind of address: the times must
// not tell which addresses have accounts.
func BenchmarkSignInAnswer(b *testing.B) {
	signinSeed(b)
	for _, email := range []string{"active@bench.test", "nobody@bench.test", "invited@bench.test", "disabled@bench.test"} {
		b.Run(strings.Split(email, "@")[0], func(b *testing.B) {
			var took []time.Duration
			for b.Loop() {
				start := time.Now()
				if code := signInOnce(b, email, "a wrong password of some length"); code != http.StatusUnauthorized {
					b.Fatalf("%s: %d", email, code)
				}
				took = append(took, time.Since(start))
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
		})
	}
}
