package sink

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"net/textproto"
	"strings"

	"golang.org/x/text/encoding/htmlindex"
)

// maxDepth bounds multipart nesting; real mail nests three or four deep,
// and the bound keeps a crafted message from recursing without end.
const maxDepth = 10

// parse fills Subject, Date, Text and HTML of a Message from raw. It never
// fails: what it cannot parse is noted in ParseError, and Raw is kept.
func parse(raw []byte) Message {
	m := Message{Raw: raw}
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		m.ParseError = err.Error()
		return m
	}
	m.Subject = decodeHeader(msg.Header.Get("Subject"))
	if d, err := msg.Header.Date(); err == nil {
		m.Date = d
	}
	if err := walk(&m, textproto.MIMEHeader(msg.Header), msg.Body, 0); err != nil {
		m.ParseError = err.Error()
	}
	return m
}

// decodeHeader decodes RFC 2047 encoded words ("=?UTF-8?Q?...?="); a value
// that does not decode is returned as it was.
func decodeHeader(v string) string {
	dec := mime.WordDecoder{CharsetReader: charsetReader}
	if s, err := dec.DecodeHeader(v); err == nil {
		return s
	}
	return v
}

// walk looks for the first inline text/plain and text/html parts, depth
// first, the way a mail client picks what to show.
func walk(m *Message, h textproto.MIMEHeader, body io.Reader, depth int) error {
	if depth > maxDepth {
		return errors.New("MIME parts nested too deeply")
	}
	mediaType, params := "text/plain", map[string]string{"charset": "us-ascii"} // RFC 2045 default
	if ct := h.Get("Content-Type"); ct != "" {
		var err error
		if mediaType, params, err = mime.ParseMediaType(ct); err != nil {
			return fmt.Errorf("bad Content-Type %q: %w", ct, err)
		}
	}
	if disp, _, _ := mime.ParseMediaType(h.Get("Content-Disposition")); disp == "attachment" {
		return nil
	}

	switch {
	case strings.HasPrefix(mediaType, "multipart/"):
		mr := multipart.NewReader(body, params["boundary"])
		for {
			// NextRawPart: NextPart would decode quoted-printable but not
			// base64; decoding both in one place keeps them alike.
			p, err := mr.NextRawPart()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return fmt.Errorf("%s: %w", mediaType, err)
			}
			if err := walk(m, p.Header, p, depth+1); err != nil {
				return err
			}
		}
	case mediaType == "text/plain" && m.Text == "":
		s, err := decodeBody(h.Get("Content-Transfer-Encoding"), params["charset"], body)
		m.Text = s
		return err
	case mediaType == "text/html" && m.HTML == "":
		s, err := decodeBody(h.Get("Content-Transfer-Encoding"), params["charset"], body)
		m.HTML = s
		return err
	}
	return nil
}

// decodeBody undoes the transfer encoding and converts the charset to UTF-8.
func decodeBody(transferEncoding, charset string, body io.Reader) (string, error) {
	switch strings.ToLower(strings.TrimSpace(transferEncoding)) {
	case "quoted-printable":
		body = quotedprintable.NewReader(body)
	case "base64":
		body = base64.NewDecoder(base64.StdEncoding, body) // skips the CRLFs between lines
	}
	r, err := charsetReader(charset, body)
	if err != nil {
		r = body // unknown charset: show the bytes rather than nothing
	}
	b, readErr := io.ReadAll(r)
	if readErr != nil {
		return string(b), fmt.Errorf("decode %s body: %w", transferEncoding, readErr)
	}
	return string(b), err
}

// charsetReader converts from charset to UTF-8; UTF-8 and US-ASCII pass
// through.
func charsetReader(charset string, r io.Reader) (io.Reader, error) {
	switch strings.ToLower(strings.TrimSpace(charset)) {
	case "", "utf-8", "utf8", "us-ascii", "ascii":
		return r, nil
	}
	enc, err := htmlindex.Get(charset)
	if err != nil {
		return nil, fmt.Errorf("charset %q: %w", charset, err)
	}
	return enc.NewDecoder().Reader(r), nil
}
