package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/kycflow/kycflow/docs"
)

// conformance checks every response the suite gets from the API against
// docs/openapi.yaml: its status must be documented for the operation, and
// its headers and body must match the documented schema. It is
// http.DefaultTransport, so whatever a test sends to the API through a
// client without a transport of its own is checked; what does not conform
// fails the run.
// apiAddrs are the addresses of the API servers the suite runs (the main
// one and those serve starts): the responses conformance checks. A map of
// its own, not env.server, which serve swaps while the in-process worker's
// provider clients send requests through the same transport.
var apiAddrs sync.Map

type conformance struct {
	base   http.RoundTripper
	router routers.Router

	mu         sync.Mutex
	violations map[string]int // a violation, and how often it happened
	checked    int
	// exercised counts the conforming responses per operation of the
	// document ("GET /api/v1/businesses"), every operation listed.
	exercised map[string]int
}

func newConformance(base http.RoundTripper) (*conformance, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(docs.OpenAPI)
	if err != nil {
		return nil, fmt.Errorf("load openapi.yaml: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("openapi.yaml is not a valid document: %w", err)
	}
	// The hosted verification pages are HTML, their script JavaScript: a
	// string to the schema. Images are bytes, a string too.
	asString := func(body io.Reader, _ http.Header, _ *openapi3.SchemaRef, _ openapi3filter.EncodingFn) (any, error) {
		b, err := io.ReadAll(body)
		return string(b), err
	}
	for _, ct := range []string{"text/html", "text/javascript", "image/jpeg", "image/png"} {
		openapi3filter.RegisterBodyDecoder(ct, asString)
	}
	// Match paths whatever the host the suite uses (tenants are told apart
	// by Host), not the servers the document lists.
	doc.Servers = nil
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, err
	}
	exercised := map[string]int{}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			exercised[method+" "+path] = 0
		}
	}
	return &conformance{base: base, router: router, violations: map[string]int{}, exercised: exercised}, nil
}

func (c *conformance) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.base.RoundTrip(req)
	if _, api := apiAddrs.Load(req.URL.Host); err != nil || !api {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	c.check(req, resp, body)
	return resp, nil
}

func (c *conformance) check(req *http.Request, resp *http.Response, body []byte) {
	// The staff's console is pages for people on the tenant's host, not a
	// part of the API's contract (docs/CONSOLE.md); its tests check it.
	if req.URL.Path == "/console" || strings.HasPrefix(req.URL.Path, "/console/") {
		return
	}
	what := fmt.Sprintf("%s %s → %d", req.Method, routeOf(req.URL.Path), resp.StatusCode)
	// The API serves a path with a trailing slash as the path without.
	if p := strings.TrimSuffix(req.URL.Path, "/"); p != req.URL.Path && p != "" {
		req = req.Clone(req.Context())
		req.URL.Path, req.URL.RawPath = p, ""
	}
	route, params, err := c.router.FindRoute(req)
	if err != nil {
		// A path or method the API does not serve: its 404 or 405 is
		// documented nowhere, and is checked by the tests that send it.
		if resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed {
			return
		}
		c.record(what + ": the document has no such operation")
		return
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 resp.StatusCode,
		Header:                 resp.Header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if err := openapi3filter.ValidateResponse(req.Context(), in); err != nil {
		msg, _, _ := strings.Cut(err.Error(), "\nSchema:")
		c.record(fmt.Sprintf("%s: %s (body %.160q)", what, msg, body))
		return
	}
	c.mu.Lock()
	c.checked++
	c.exercised[route.Method+" "+route.Path]++
	c.mu.Unlock()
}

func (c *conformance) record(v string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.violations[v]++
}

// report lists the violations (sorted) and the operations of the document
// no conforming response answered (sorted).
func (c *conformance) report() (checked int, violations, unexercised []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for v, n := range c.violations {
		violations = append(violations, fmt.Sprintf("%d× %s", n, v))
	}
	sort.Strings(violations)
	for op, n := range c.exercised {
		if n == 0 {
			unexercised = append(unexercised, op)
		}
	}
	sort.Strings(unexercised)
	return c.checked, violations, unexercised
}

// routeOf shortens ids in a path, so one violation is reported once.
func routeOf(path string) string {
	parts := strings.Split(path, "/")
	for i, p := range parts {
		if len(p) >= 32 || (len(p) > 0 && strings.Trim(p, "0123456789") == "") {
			parts[i] = "{id}"
		}
	}
	return strings.Join(parts, "/")
}
