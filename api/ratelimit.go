package api

import (
	"errors"
	"math"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/time/rate"

	"github.com/kycflow/kycflow/signin"
	"github.com/kycflow/kycflow/store"
)

// Limits are the request budgets of one API process; a zero field turns
// that limit off. Budgets are token buckets: the burst is twice the
// per-second rate, or the per-minute count itself.
type Limits struct {
	// Tenant is requests per second per tenant, after authentication.
	Tenant float64
	// IP is requests per second per client address, before authentication.
	IP float64
	// AuthFailures is failed authentications (unknown host, missing, wrong
	// or revoked key) per minute per client address: past it, the address
	// gets 429 without its key being looked up at all.
	AuthFailures float64
	// Verify is requests per minute per client address on /verify pages.
	Verify float64
	// VerifyFailures is unknown-link answers per minute per client address
	// (token guessing) on /verify pages.
	VerifyFailures float64
	// ScreenCPU is the CPU-seconds per second a tenant's synchronous
	// screenings may take (cpuBudget).
	ScreenCPU float64
	// TrustedProxies are the proxies whose X-Forwarded-For names the client;
	// none: the client is the connection's peer, and the header is ignored.
	TrustedProxies []netip.Prefix
}

// keyed holds one token bucket per client address. Addresses idle for ten
// minutes are dropped, so a flood from many addresses cannot grow it
// without bound.
type keyed struct {
	limit rate.Limit
	burst int

	mu    sync.Mutex
	m     map[netip.Addr]*seen
	swept time.Time
}

type seen struct {
	l    *rate.Limiter
	last time.Time
}

const (
	idleAfter = 10 * time.Minute
	maxKeys   = 200_000
)

func perSecond(n float64) *keyed {
	if n <= 0 {
		return nil
	}
	return &keyed{limit: rate.Limit(n), burst: max(1, int(math.Ceil(2*n))), m: map[netip.Addr]*seen{}}
}

func perMinute(n float64) *keyed {
	if n <= 0 {
		return nil
	}
	return &keyed{limit: rate.Limit(n / 60), burst: max(1, int(math.Ceil(n))), m: map[netip.Addr]*seen{}}
}

func (k *keyed) get(a netip.Addr, now time.Time) *rate.Limiter {
	k.mu.Lock()
	defer k.mu.Unlock()
	if now.Sub(k.swept) > time.Minute || len(k.m) >= maxKeys {
		for key, s := range k.m {
			if now.Sub(s.last) > idleAfter {
				delete(k.m, key)
			}
		}
		k.swept = now
		if len(k.m) >= maxKeys { // all busy: start afresh rather than grow
			clear(k.m)
		}
	}
	s, ok := k.m[a]
	if !ok {
		s = &seen{l: rate.NewLimiter(k.limit, k.burst)}
		k.m[a] = s
	}
	s.last = now
	return s.l
}

// budget tells a client where it stands, in the IETF RateLimit header
// fields (draft-ietf-httpapi-ratelimit-headers, as Persona sends them):
// the bucket's size, what is left of it, and the seconds until it is full.
func budget(h http.Header, l *rate.Limiter, now time.Time) {
	tokens := max(0, l.TokensAt(now))
	h.Set("RateLimit-Limit", strconv.Itoa(l.Burst()))
	h.Set("RateLimit-Remaining", strconv.Itoa(int(tokens)))
	h.Set("RateLimit-Reset", strconv.Itoa(int(math.Ceil((float64(l.Burst())-tokens)/float64(l.Limit())))))
}

// tooMany is the 429 for a bucket out of tokens, with Retry-After the
// seconds until the next one.
func tooMany(l *rate.Limiter, now time.Time) *apiError {
	wait := math.Ceil((1 - l.TokensAt(now)) / float64(l.Limit()))
	return &apiError{status: http.StatusTooManyRequests, message: "Too many requests.", retryAfter: max(1, int(wait))}
}

// clientAddr is the request's client address as the limits count it: the
// peer, or the client a trusted proxy names; IPv6 clients by their /64,
// which one subscriber usually has whole.
func clientAddr(c echo.Context) netip.Addr {
	a, err := netip.ParseAddr(c.RealIP())
	if err != nil {
		return netip.IPv4Unspecified()
	}
	a = a.Unmap()
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.Addr()
	}
	return a
}

// addressBudget is what a client address may spend: requests, and a
// smaller budget of failures (nil: that limit is off).
type addressBudget struct{ all, fails *keyed }

// admit spends one request of addr's budget and sets the RateLimit fields.
// refused is the bucket that said no (nil: go on); fails is addr's failure
// bucket, for the caller to spend from when the request fails.
func (b addressBudget) admit(h http.Header, addr netip.Addr, now time.Time) (fails, refused *rate.Limiter) {
	if b.fails != nil {
		fails = b.fails.get(addr, now)
		if fails.TokensAt(now) < 1 {
			budget(h, fails, now)
			return fails, fails
		}
	}
	if b.all != nil {
		l := b.all.get(addr, now)
		allowed := l.AllowN(now, 1)
		budget(h, l, now)
		if !allowed {
			return fails, l
		}
	}
	return fails, nil
}

// guardAPI runs in front of authentication on every /api/ path (unknown
// routes too): a client address past its request budget, or past its
// budget of failed authentications, gets 429 without a database round
// trip; each failed authentication spends one.
func (s *Server) guardAPI(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !strings.HasPrefix(c.Request().URL.Path, "/api/") {
			return next(c)
		}
		now := time.Now()
		h := c.Response().Header()
		fails, refused := s.apiBudget.admit(h, clientAddr(c), now)
		if refused != nil {
			return tooMany(refused, now)
		}
		err := next(c)
		if fails != nil && (errors.Is(err, store.ErrUnauthenticated) || errors.Is(err, store.ErrUnknownTenant)) {
			fails.AllowN(now, 1)
			if s.apiBudget.all == nil {
				budget(h, fails, now)
			}
		}
		return err
	}
}

// rateLimit applies a token bucket per tenant (per API process); its
// budget is the one the RateLimit headers of an authenticated answer show.
func (s *Server) rateLimit(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if s.limits.Tenant <= 0 {
			return next(c)
		}
		id := principal(c).TenantID
		v, ok := s.tenants.Load(id)
		if !ok {
			v, _ = s.tenants.LoadOrStore(id, rate.NewLimiter(rate.Limit(s.limits.Tenant), max(1, int(math.Ceil(2*s.limits.Tenant)))))
		}
		l := v.(*rate.Limiter)
		now := time.Now()
		allowed := l.AllowN(now, 1)
		budget(c.Response().Header(), l, now)
		if !allowed {
			return tooMany(l, now)
		}
		return next(c)
	}
}

// guardPages limits the pages people open (the verification pages, the
// console) per client address: all requests, and tighter the answers with
// a failing status — "unknown link" (token guessing), "not signed in"
// (password guessing). A request reserves one failure before it is
// served, given back when it did not fail: requests sent together cannot
// all be served before the first failure is counted, so no more than the
// failure budget is ever in flight. The client address goes with the
// request (signin.Client: what a sign-in's lock-out counts per).
func (s *Server) guardPages(busy func(w http.ResponseWriter, r *http.Request), failing ...int) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			now := time.Now()
			h := c.Response().Header()
			addr := clientAddr(c)
			fails, refused := s.verifyBudget.admit(h, addr, now)
			var held *rate.Reservation
			if fails != nil && refused == nil {
				if held = fails.ReserveN(now, 1); !held.OK() || held.DelayFrom(now) > 0 {
					held.CancelAt(now)
					refused = fails
				}
			}
			if refused != nil {
				h.Set("Retry-After", strconv.Itoa(tooMany(refused, now).retryAfter))
				busy(c.Response(), c.Request())
				return nil
			}
			r := c.Request()
			c.SetRequest(r.WithContext(signin.WithClient(r.Context(), addr)))
			err := next(c)
			if held != nil && !slices.Contains(failing, c.Response().Status) {
				held.CancelAt(time.Now()) // not a failure: given back
			}
			return err
		}
	}
}
