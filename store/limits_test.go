package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
)

// Turns are spaced across every pool that asks (two pools stand for two
// worker processes), a turn too far away is refused without being
// reserved, and slots are leased to one holder at a time until given back
// or until the lease runs out.
func TestProviderLimits(t *testing.T) {
	ctx := context.Background()
	one, two := open(t, workerDSN), open(t, workerDSN)
	test := "test-" + uuid.NewString()[:8] // rows of an earlier run stay
	const spacing = 50 * time.Millisecond
	var waits []time.Duration
	asked := time.Now()
	for i := range 6 {
		s := one
		if i%2 == 1 {
			s = two
		}
		w, ok, err := s.ProviderTurn(ctx, test, "NL", spacing, time.Hour)
		if err != nil || !ok {
			t.Fatalf("turn %d: %v %v", i, ok, err)
		}
		waits = append(waits, w)
	}
	// The sixth turn is five spacings after the first (which is no earlier
	// than the asking), and never more than five spacings away.
	if sixth := time.Since(asked) + waits[5]; sixth < 5*spacing || waits[5] > 5*spacing {
		t.Fatalf("waits %v: the sixth turn %v after asking, want at least %v", waits, sixth, 5*spacing)
	}
	// With turns a minute apart, the second is refused when the caller
	// waits no more than a second, and that refusal reserves nothing.
	if _, ok, err := one.ProviderTurn(ctx, test, "slow", time.Minute, 0); err != nil || !ok {
		t.Fatalf("first slow turn: %v %v", ok, err)
	}
	if _, ok, err := two.ProviderTurn(ctx, test, "slow", time.Minute, time.Second); err != nil || ok {
		t.Fatalf("a turn beyond max wait: ok %v, %v", ok, err)
	}
	if w, ok, _ := two.ProviderTurn(ctx, test, "slow", time.Minute, time.Hour); !ok || w > time.Minute {
		t.Fatalf("the refused turn was reserved: the next is %v away", w)
	}
	// Another scope has its own turns.
	if w, ok, _ := one.ProviderTurn(ctx, test, "DE", spacing, 0); !ok || w != 0 {
		t.Fatalf("DE waited %v (ok %v) behind NL", w, ok)
	}

	a, b, c := uuid.New(), uuid.New(), uuid.New()
	sa, ok, err := one.TakeProviderSlot(ctx, test, "NL", 2, a, time.Minute)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	sb, ok, _ := two.TakeProviderSlot(ctx, test, "NL", 2, b, 300*time.Millisecond)
	if !ok || sb == sa {
		t.Fatalf("second slot %d (ok %v), first %d", sb, ok, sa)
	}
	if _, ok, _ := one.TakeProviderSlot(ctx, test, "NL", 2, c, time.Minute); ok {
		t.Fatal("a third holder got one of two slots")
	}
	// Another holder can neither renew nor end a lease; its holder can.
	if held, err := one.KeepProviderSlot(ctx, test, "NL", sa, c, 0); err != nil || held {
		t.Fatalf("a stranger kept slot %d: %v %v", sa, held, err)
	}
	if _, ok, _ := two.TakeProviderSlot(ctx, test, "NL", 2, c, time.Minute); ok {
		t.Fatal("a slot was given back by someone not holding it")
	}
	if held, err := one.KeepProviderSlot(ctx, test, "NL", sa, a, time.Minute); err != nil || !held {
		t.Fatalf("the holder could not renew: %v %v", held, err)
	}
	if held, err := one.KeepProviderSlot(ctx, test, "NL", sa, a, 0); err != nil || !held {
		t.Fatalf("the holder could not give back: %v %v", held, err)
	}
	if s, ok, _ := two.TakeProviderSlot(ctx, test, "NL", 2, c, time.Minute); !ok || s != sa {
		t.Fatalf("the given-back slot: %d, %v", s, ok)
	}
	// b never gives its slot back (its process died): it frees itself.
	deadline := time.Now().Add(10 * time.Second)
	for {
		s, ok, err := one.TakeProviderSlot(ctx, test, "NL", 2, a, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			if s != sb {
				t.Fatalf("took slot %d, want the expired %d", s, sb)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("an expired lease was never freed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Nonsense is refused by the function itself.
	for _, bad := range []func() error{
		func() error { _, _, err := one.ProviderTurn(ctx, test, "NL", 0, time.Second); return err },
		func() error { _, _, err := one.ProviderTurn(ctx, "", "NL", time.Second, time.Second); return err },
		func() error { _, _, err := one.TakeProviderSlot(ctx, test, "NL", 0, a, time.Second); return err },
		func() error { _, _, err := one.TakeProviderSlot(ctx, test, "NL", 1, a, 2*time.Hour); return err },
		func() error { _, err := one.KeepProviderSlot(ctx, test, "NL", 0, a, -time.Second); return err },
	} {
		if bad() == nil {
			t.Error("an out-of-range argument was accepted")
		}
	}
}
