package sink

import "testing"

// LOGIN without an initial response is what go-mail and most clients send;
// go-smtp's own client (used in sink_test) covers the other form.
func TestLoginServerWithoutInitialResponse(t *testing.T) {
	l := &loginServer{}
	for i, step := range []struct {
		resp, challenge string
		nilResp, done   bool
	}{
		{nilResp: true, challenge: "Username:"},
		{resp: "user", challenge: "Password:"},
		{resp: "secret", done: true},
	} {
		var resp []byte
		if !step.nilResp {
			resp = []byte(step.resp)
		}
		challenge, done, err := l.Next(resp)
		if err != nil || string(challenge) != step.challenge || done != step.done {
			t.Fatalf("step %d: %q, %v, %v", i, challenge, done, err)
		}
	}
}
