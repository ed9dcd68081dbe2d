// Package sink is an in-process SMTP server that catches mail instead of
// delivering it: the local mail catcher of `kycflow dev` (with a web page,
// see Handler) and the SMTP server of tests.
//
// It speaks plain SMTP, meant for loopback, and offers STARTTLS when started
// WithSTARTTLS (switchable at run time with SetSTARTTLS, to test a client
// against a server that offers it and one that does not). It accepts any
// sender and recipient. It offers AUTH PLAIN and
// LOGIN, without TLS, and accepts any credentials, so a client configured
// with a user name and password works against it unchanged. Caught messages
// are kept in memory, the newest DefaultCapacity of them.
package sink

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/emersion/go-smtp"
)

// DefaultCapacity is how many messages a Sink keeps unless WithCapacity
// says otherwise; older ones are dropped.
const DefaultCapacity = 1000

// MaxMessageBytes is the largest message a Sink accepts (552 beyond).
const MaxMessageBytes = 10 << 20

// ErrClosed is returned by Wait once the Sink is closed.
var ErrClosed = errors.New("sink: closed")

// Message is one caught message. From and To are the SMTP envelope (MAIL
// FROM and RCPT TO, so To includes Bcc recipients); Subject, Date, Text and
// HTML come from the parsed content. Treat Raw as read-only: it is shared
// between copies.
type Message struct {
	ID       int       `json:"id"`       // 1, 2, ... in order of arrival
	From     string    `json:"from"`     // envelope sender
	To       []string  `json:"to"`       // envelope recipients
	Subject  string    `json:"subject"`  // decoded (RFC 2047)
	Date     time.Time `json:"date"`     // the Date header, or Received when it is missing or unparsable
	Received time.Time `json:"received"` // when the sink accepted the message
	Raw      []byte    `json:"-"`        // the message as received (after SMTP dot-unstuffing)
	Text     string    `json:"text"`     // the first text/plain part, decoded to UTF-8
	HTML     string    `json:"html"`     // the first text/html part, decoded to UTF-8
	TLS      bool      `json:"tls"`      // the message came over TLS (after STARTTLS)

	// ParseError says why the content could not be fully parsed; Raw is
	// still kept so a broken message can be inspected.
	ParseError string `json:"parse_error,omitempty"`
}

// Option changes how Start sets up a Sink.
type Option func(*options)

type options struct {
	capacity      int
	rejectRcpt    func(string) bool
	deferRcpt     func(string) bool
	now           func() time.Time
	serverTimeout time.Duration
	tls           *tls.Config
}

// WithSTARTTLS offers STARTTLS with config (its certificate) from the start.
func WithSTARTTLS(config *tls.Config) Option {
	return func(o *options) { o.tls = config }
}

// WithCapacity keeps at most n messages (n >= 1) instead of DefaultCapacity.
func WithCapacity(n int) Option {
	return func(o *options) { o.capacity = n }
}

// WithRejectRecipient makes the sink refuse RCPT TO for addresses where
// reject returns true, with the permanent "550 5.1.1" a real server gives
// for an unknown mailbox. For testing how senders handle bounces.
func WithRejectRecipient(reject func(addr string) bool) Option {
	return func(o *options) { o.rejectRcpt = reject }
}

// WithDeferRecipient makes the sink refuse RCPT TO for addresses where
// deferRcpt returns true, with the temporary "451 4.3.0" of a greylisting or
// overloaded server. For testing how senders handle temporary failures.
func WithDeferRecipient(deferRcpt func(addr string) bool) Option {
	return func(o *options) { o.deferRcpt = deferRcpt }
}

// Sink is a running SMTP server that keeps what it receives. It is safe for
// concurrent use.
type Sink struct {
	opts options
	// plain and secure serve the same backend; secure offers STARTTLS. Each
	// accepted connection goes to one of them, as offerTLS says.
	plain, secure *smtp.Server
	toPlain       *chanListener
	toSecure      *chanListener
	offerTLS      atomic.Bool
	ln            net.Listener
	done          chan struct{} // closed by Close
	once          sync.Once

	leftWithoutTLS atomic.Int64 // what LeftWithoutTLS counts

	mu       sync.Mutex
	messages []Message     // oldest first; at most opts.capacity
	nextID   int           // ID of the next message
	arrived  chan struct{} // closed and replaced when a message arrives
}

// Start listens on addr (e.g. "127.0.0.1:0" for any free port, or
// "127.0.0.1:1025") and serves SMTP until Close.
func Start(addr string, opts ...Option) (*Sink, error) {
	o := options{capacity: DefaultCapacity, now: time.Now, serverTimeout: time.Minute}
	for _, opt := range opts {
		opt(&o)
	}
	if o.capacity < 1 {
		return nil, fmt.Errorf("sink: capacity %d must be at least 1", o.capacity)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("sink: listen: %w", err)
	}
	s := &Sink{
		opts:    o,
		ln:      ln,
		done:    make(chan struct{}),
		nextID:  1,
		arrived: make(chan struct{}),
	}
	newServer := func(starttls bool) *smtp.Server {
		srv := smtp.NewServer(backend{sink: s, starttls: starttls})
		srv.Domain = "localhost"
		srv.AllowInsecureAuth = true // credentials are not checked anyway
		srv.MaxMessageBytes = MaxMessageBytes
		srv.MaxRecipients = 100
		srv.ReadTimeout = o.serverTimeout
		srv.WriteTimeout = o.serverTimeout
		return srv
	}
	s.plain, s.secure = newServer(false), newServer(true)
	s.secure.TLSConfig = o.tls
	s.offerTLS.Store(o.tls != nil)
	s.toPlain, s.toSecure = newChanListener(ln.Addr()), newChanListener(ln.Addr())
	go func() { _ = s.plain.Serve(s.toPlain) }()
	go func() { _ = s.secure.Serve(s.toSecure) }()
	go s.accept()
	return s, nil
}

// SetSTARTTLS turns the STARTTLS offer on or off for new connections (on
// needs WithSTARTTLS).
func (s *Sink) SetSTARTTLS(on bool) { s.offerTLS.Store(on && s.opts.tls != nil) }

// LeftWithoutTLS counts the SMTP sessions that ended without a message on
// connections not offered STARTTLS: a client that requires TLS greets the
// server, finds no offer and hangs up, so each refused attempt is one.
func (s *Sink) LeftWithoutTLS() int { return int(s.leftWithoutTLS.Load()) }

// accept hands each connection to the server that offers what is asked now;
// it returns when Close closes the listener.
func (s *Sink) accept() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		to := s.toPlain
		if s.offerTLS.Load() {
			to = s.toSecure
		}
		select {
		case to.conns <- c:
		case <-s.done:
			c.Close()
			return
		}
	}
}

// chanListener is a net.Listener fed with connections by Sink.accept.
type chanListener struct {
	addr   net.Addr
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func newChanListener(addr net.Addr) *chanListener {
	return &chanListener{addr: addr, conns: make(chan net.Conn), closed: make(chan struct{})}
}

func (l *chanListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *chanListener) Close() error   { l.once.Do(func() { close(l.closed) }); return nil }
func (l *chanListener) Addr() net.Addr { return l.addr }

// Addr returns the host:port the sink listens on, e.g. "127.0.0.1:41234".
func (s *Sink) Addr() string { return s.ln.Addr().String() }

// Close stops the server, dropping open connections, and makes pending and
// later Wait calls return ErrClosed. Caught messages stay readable.
func (s *Sink) Close() error {
	var err error
	s.once.Do(func() {
		close(s.done)
		err = errors.Join(s.ln.Close(), s.plain.Close(), s.secure.Close())
	})
	return err
}

// Messages returns the caught messages, newest first.
func (s *Sink) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Message, len(s.messages))
	for i, m := range s.messages {
		out[len(out)-1-i] = m
	}
	return out
}

// Message returns the message with the given ID, if it is still kept.
func (s *Sink) Message(id int) (Message, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.messages {
		if m.ID == id {
			return m, true
		}
	}
	return Message{}, false
}

// Wait returns the newest kept message for which match returns true (nil
// matches any), waiting for one to arrive if none does yet. It considers
// messages caught before the call too, so a test can send first and wait
// after without a race. It returns ctx's error when ctx ends first and
// ErrClosed when the sink is closed.
func (s *Sink) Wait(ctx context.Context, match func(Message) bool) (Message, error) {
	for {
		s.mu.Lock()
		for i := len(s.messages) - 1; i >= 0; i-- {
			if match == nil || match(s.messages[i]) {
				m := s.messages[i]
				s.mu.Unlock()
				return m, nil
			}
		}
		arrived := s.arrived
		s.mu.Unlock()

		select {
		case <-arrived:
		case <-ctx.Done():
			return Message{}, context.Cause(ctx)
		case <-s.done:
			return Message{}, ErrClosed
		}
	}
}

// add stores a received message, dropping the oldest beyond capacity, and
// wakes every Wait.
func (s *Sink) add(from string, to []string, raw []byte, overTLS bool) {
	received := s.opts.now()
	m := parse(raw)
	if m.Date.IsZero() {
		m.Date = received
	}
	m.From, m.To, m.Received, m.TLS = from, to, received, overTLS

	s.mu.Lock()
	defer s.mu.Unlock()
	m.ID = s.nextID
	s.nextID++
	if len(s.messages) >= s.opts.capacity {
		n := len(s.messages) - s.opts.capacity + 1
		clear(s.messages[:n]) // let the dropped Raw bodies be collected
		s.messages = s.messages[n:]
	}
	s.messages = append(s.messages, m)
	close(s.arrived)
	s.arrived = make(chan struct{})
}
