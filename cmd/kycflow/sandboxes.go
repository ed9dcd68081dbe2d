package main

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	kvksandbox "github.com/kycflow/kycflow/providers/kvk/sandbox"
	viessandbox "github.com/kycflow/kycflow/providers/vies/sandbox"
)

// Where `kycflow dev` serves the provider sandboxes.
const (
	devKvKAddr  = "127.0.0.1:8091"
	devVIESAddr = "127.0.0.1:8092"
	// devRequester is the fictional VAT number dev consults VIES as, so the
	// sandbox hands out consultation numbers.
	devRequester = "NL862042173B01"
)

// sandboxes are the provider sandboxes `kycflow dev` runs on loopback.
type sandboxes struct {
	servers []*http.Server
	lines   []string
}

// startSandboxes serves the KvK and VIES sandboxes for every provider whose
// base URL is not set, and points cfg's clients at them.
func startSandboxes(cfg *config) (*sandboxes, error) {
	sb := &sandboxes{}
	serve := func(addr string, h http.Handler) (string, error) {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			sb.close()
			return "", fmt.Errorf("sandbox on %s: %w (is another kycflow dev running? or set KVK_BASE_URL / VIES_BASE_URL)", addr, err)
		}
		srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
		sb.servers = append(sb.servers, srv)
		go func() {
			if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
				fmt.Println("sandbox stopped:", err)
			}
		}()
		return "http://" + addr, nil
	}
	if cfg.KvKBaseURL == "" {
		url, err := serve(devKvKAddr, kvksandbox.New().Handler())
		if err != nil {
			return nil, err
		}
		cfg.KvKBaseURL, cfg.KvKAPIKey = url, kvksandbox.TestAPIKey
		sb.lines = append(sb.lines, fmt.Sprintf(`  KvK sandbox    %[1]s   (test numbers: docs/PROVIDERS.md)
                 outage: curl -X POST %[1]s/sandbox/outage -d '{"status":503,"seconds":60}'`, url))
	}
	if cfg.VIESBaseURL == "" {
		url, err := serve(devVIESAddr, viessandbox.New(viessandbox.DemoTraders).Handler())
		if err != nil {
			return nil, err
		}
		cfg.VIESBaseURL = url
		if cfg.VIESRequester == "" {
			cfg.VIESRequester = devRequester
		}
		sb.lines = append(sb.lines, fmt.Sprintf(`  VIES sandbox   %[1]s   (test numbers: docs/PROVIDERS.md)
                 outage: curl -X POST %[1]s/sandbox/outage -d '{"error":"MS_UNAVAILABLE","seconds":60}'`, url))
	}
	return sb, nil
}

func (sb *sandboxes) describe() string {
	if len(sb.lines) == 0 {
		return ""
	}
	return strings.Join(sb.lines, "\n") + "\n"
}

func (sb *sandboxes) close() {
	for _, s := range sb.servers {
		s.Close()
	}
}
