package mail_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kycflow/kycflow/providers/mail"
)

func TestNewValidatesConfig(t *testing.T) {
	valid := mail.Config{Host: "smtp.example.com", From: "kycflow <no-reply@kycflow.local>"}
	for _, tc := range []struct {
		name   string
		change func(*mail.Config)
		want   string // must appear in the error; "" means no error
	}{
		{"defaults", func(*mail.Config) {}, ""},
		{"all modes", func(c *mail.Config) { c.TLS = "TLS"; c.Port = 2465; c.Timeout = time.Second }, ""},
		{"auth", func(c *mail.Config) { c.Username, c.Password = "u", "p" }, ""},
		{"no host", func(c *mail.Config) { c.Host = " " }, "Config.Host is required"},
		{"host with port", func(c *mail.Config) { c.Host = "smtp://smtp.example.com" }, "Config.Host"},
		{"bad TLS", func(c *mail.Config) { c.TLS = "ssl" }, `Config.TLS "ssl" is not one of none, starttls, tls`},
		{"bad port", func(c *mail.Config) { c.Port = 70000 }, "Config.Port 70000"},
		{"no from", func(c *mail.Config) { c.From = "" }, "Config.From is required"},
		{"bad from", func(c *mail.Config) { c.From = "kycflow" }, `Config.From "kycflow" is not an e-mail address`},
		{"user without password", func(c *mail.Config) { c.Username = "u" }, "Config.Password is required when Config.Username is set"},
		{"password without user", func(c *mail.Config) { c.Password = "p" }, "Config.Username is required when Config.Password is set"},
		{"negative timeout", func(c *mail.Config) { c.Timeout = -time.Second }, "Config.Timeout -1s is negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := valid
			tc.change(&cfg)
			m, err := mail.New(cfg)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("New: %v", err)
			case tc.want == "" && m == nil:
				t.Fatal("New returned no Mailer")
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("New: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestNewReportsEveryBadField(t *testing.T) {
	_, err := mail.New(mail.Config{TLS: "x", Port: -1})
	for _, field := range []string{"Config.Host", "Config.TLS", "Config.Port", "Config.From"} {
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("error %v does not name %s", err, field)
		}
	}
}
