package devstack

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/kycflow/kycflow/app"
	idinsandbox "github.com/kycflow/kycflow/providers/idin/sandbox"
	kvksandbox "github.com/kycflow/kycflow/providers/kvk/sandbox"
	"github.com/kycflow/kycflow/providers/mail/sink"
	viessandbox "github.com/kycflow/kycflow/providers/vies/sandbox"
)

// devRequester is the fictional VAT number dev consults VIES as, so the
// sandbox hands out consultation numbers.
const devRequester = "NL862042173B01"

// sandboxes are provider sandboxes served by this Process.
type sandboxes struct {
	servers []*http.Server
	sinks   []*sink.Sink
	lines   []string
}

// serve serves h on addr and returns its base URL.
func (sb *sandboxes) serve(name, addr string, h http.Handler) (string, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("%s sandbox on %s: %w", name, addr, err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	sb.servers = append(sb.servers, srv)
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Println(name, "sandbox stopped:", err)
		}
	}()
	host := l.Addr().String()
	if strings.HasPrefix(addr, ":") {
		host = "127.0.0.1" + addr
	}
	return "http://" + host, nil
}

func (sb *sandboxes) kvk(addr string) (string, error) {
	url, err := sb.serve("KvK", addr, kvksandbox.New().Handler())
	if err == nil {
		sb.lines = append(sb.lines, fmt.Sprintf(`  KvK sandbox    %[1]s   (test numbers: docs/PROVIDERS.md)
                 outage: curl -X POST %[1]s/sandbox/outage -d '{"status":503,"seconds":60}'`, url))
	}
	return url, err
}

func (sb *sandboxes) vies(addr string) (string, error) {
	url, err := sb.serve("VIES", addr, viessandbox.New(viessandbox.DemoTraders).Handler())
	if err == nil {
		sb.lines = append(sb.lines, fmt.Sprintf(`  VIES sandbox   %[1]s   (test numbers: docs/PROVIDERS.md)
                 outage: curl -X POST %[1]s/sandbox/outage -d '{"error":"MS_UNAVAILABLE","seconds":60}'`, url))
	}
	return url, err
}

// startSandboxes serves, for `kycflow dev`, the sandbox of every provider
// whose base URL is not set (and a mail catcher when SMTP_HOST is not),
// and points cfg's clients at them.
func startSandboxes(cfg *app.Config) (*sandboxes, error) {
	sb := &sandboxes{}
	if cfg.KvKBaseURL == "" {
		url, err := sb.kvk(cfg.SandboxKvKAddr)
		if err != nil {
			sb.close()
			return nil, fmt.Errorf("%w (is another kycflow dev running? or set KVK_BASE_URL)", err)
		}
		cfg.KvKBaseURL, cfg.KvKAPIKey = url, kvksandbox.TestAPIKey
	}
	if cfg.IDINMerchantToken == "" {
		url, err := sb.idin(cfg.SandboxIDINAddr)
		if err != nil {
			sb.close()
			return nil, fmt.Errorf("%w (is another kycflow dev running? or set IDIN_MERCHANT_TOKEN)", err)
		}
		cfg.IDINBaseURL, cfg.IDINMerchantToken = url+idinsandbox.BasePath, idinsandbox.TestMerchantToken
	}
	if cfg.SMTPHost == "" {
		host, port, err := sb.mailCatcher(cfg.DevSMTPAddr, cfg.DevMailUIAddr)
		if err != nil {
			sb.close()
			return nil, fmt.Errorf("%w (is another kycflow dev running? or set SMTP_HOST)", err)
		}
		cfg.SMTPHost, cfg.SMTPPort, cfg.SMTPTLS = host, port, "none"
	}
	if cfg.VIESBaseURL == "" {
		url, err := sb.vies(cfg.SandboxVIESAddr)
		if err != nil {
			sb.close()
			return nil, fmt.Errorf("%w (is another kycflow dev running? or set VIES_BASE_URL)", err)
		}
		cfg.VIESBaseURL = url
		if cfg.VIESRequester == "" {
			cfg.VIESRequester = devRequester
		}
	}
	return sb, nil
}

// idin serves the iDIN broker sandbox and its test bank page.
func (sb *sandboxes) idin(addr string) (string, error) {
	s := idinsandbox.New()
	url, err := sb.serve("iDIN", addr, s.Handler())
	if err == nil {
		s.SetPublicURL(url)
		sb.lines = append(sb.lines, fmt.Sprintf("  iDIN sandbox   %s   (a test bank: pick the outcome, edit the attributes)", url))
	}
	return url, err
}

// mailCatcher catches link mails on smtpAddr and shows them on uiAddr.
func (sb *sandboxes) mailCatcher(smtpAddr, uiAddr string) (host string, port int, err error) {
	s, err := sink.Start(smtpAddr)
	if err != nil {
		return "", 0, fmt.Errorf("mail catcher on %s: %w", smtpAddr, err)
	}
	sb.sinks = append(sb.sinks, s)
	url, err := sb.serve("mail catcher", uiAddr, s.Handler())
	if err != nil {
		return "", 0, err
	}
	sb.lines = append(sb.lines, fmt.Sprintf("  Mail catcher   %s   (every link mail; SMTP on %s)", url, s.Addr()))
	h, p, _ := net.SplitHostPort(s.Addr())
	port, _ = strconv.Atoi(p)
	return h, port, nil
}

// RunSandbox serves both sandboxes until ctx ends (docker-compose's
// `sandboxes` service; a tester's own setup).
func RunSandbox(ctx context.Context, cfg app.Config, _ []string) error {
	sb := &sandboxes{}
	defer sb.close()
	if _, err := sb.kvk(cfg.SandboxKvKAddr); err != nil {
		return err
	}
	if _, err := sb.vies(cfg.SandboxVIESAddr); err != nil {
		return err
	}
	if _, err := sb.idin(cfg.SandboxIDINAddr); err != nil {
		return err
	}
	fmt.Printf("provider sandboxes running (KvK API key %s, iDIN merchant token %s); Ctrl-C stops them\n%s",
		kvksandbox.TestAPIKey, idinsandbox.TestMerchantToken, sb.describe())
	<-ctx.Done()
	return nil
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
	for _, s := range sb.sinks {
		s.Close()
	}
}
