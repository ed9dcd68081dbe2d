package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kycflow/kycflow/engines/docgen"
	"github.com/kycflow/kycflow/engines/mrz"
)

// The upload set creates each customer as its document names them, and
// counts a completed check read exactly only when every field the API
// returns is the label's; a check that says anything else is a wrong read,
// a retake of a readable photo a miss with its reason, and a read of a
// photo labelled unreadable is never counted exact.
func TestUploadSetScoresTheCheck(t *testing.T) {
	ids := make([]docgen.Identity, 4)
	for i := range ids {
		ids[i] = docgen.RandomIdentity(rand.New(rand.NewPCG(uint64(i), 3)), mrz.TD3)
	}
	samples := []docgen.Sample{
		{Name: "right", MRZ: ids[0].MRZ, Readable: true, Profile: docgen.Clean},
		{Name: "wrong", MRZ: ids[1].MRZ, Readable: true, Profile: docgen.Clean},
		{Name: "retake", MRZ: ids[2].MRZ, Readable: true, Profile: docgen.Clean},
		{Name: "unreadable", MRZ: ids[3].MRZ, Readable: false, Why: "glare", Profile: docgen.Clean},
	}
	for i := range samples {
		samples[i].JPEG = []byte(samples[i].Name)
	}
	// What the service answers for each photo (by its bytes).
	data := func(f mrz.Fields) map[string]any {
		date := func(yymmdd string) string { return "19" + yymmdd[:2] + "-" + yymmdd[2:4] + "-" + yymmdd[4:] }
		sub := map[string]any{"result": "clear"}
		return map[string]any{"source": "photo", "document_code": f.DocumentCode, "issuing_state": f.IssuingState,
			"document_number": f.DocumentNumber, "surname": f.Surname, "given_names": f.GivenNames, "nationality": f.Nationality,
			"sex": f.Sex, "birth_date": date(f.BirthDate), "expiry_date": date(f.ExpiryDate),
			"checks": map[string]any{"image_quality": sub, "mrz_read": sub, "check_digits": sub, "document_expired": sub, "data_comparison": sub, "document_accepted": sub}}
	}
	misread := ids[1].Fields
	misread.DocumentNumber = "X" + misread.DocumentNumber[1:]
	answers := map[string]map[string]any{"right": data(ids[0].Fields), "wrong": data(misread), "unreadable": data(ids[3].Fields)}

	var mu sync.Mutex
	var created []map[string]any
	photoOf := map[string]string{} // customer → the photo uploaded to its link
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		switch path := r.URL.Path; {
		case r.Method == http.MethodPost && path == "/api/v1/customers/create":
			var body map[string]any
			json.NewDecoder(r.Body).Decode(&body)
			created = append(created, body)
			id := fmt.Sprint(len(created))
			w.WriteHeader(http.StatusCreated)
			json.NewEncoder(w).Encode(map[string]any{"id": id, "urls": map[string]string{"idscan": "http://" + r.Host + "/verify/tok" + id}})
		case r.Method == http.MethodPost && strings.HasSuffix(path, "/document"):
			f, _, err := r.FormFile("image")
			if err != nil {
				t.Errorf("upload: %v", err)
				return
			}
			b := make([]byte, 64)
			n, _ := f.Read(b)
			photoOf[strings.TrimSuffix(strings.TrimPrefix(path, "/verify/tok"), "/document")] = string(b[:n])
			w.WriteHeader(http.StatusAccepted)
		case strings.HasSuffix(path, "/status"):
			photo := photoOf[strings.TrimSuffix(strings.TrimPrefix(path, "/verify/tok"), "/status")]
			st := map[string]any{"state": "done"}
			if photo == "retake" {
				st = map[string]any{"state": "retake", "reason": "glare"}
			}
			json.NewEncoder(w).Encode(st)
		case strings.HasPrefix(path, "/api/v1/customers/"):
			photo := photoOf[strings.TrimPrefix(path, "/api/v1/customers/")]
			json.NewEncoder(w).Encode(map[string]any{"idscan_check": map[string]any{"status": "completed", "data": answers[photo]}})
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	b := &bencher{base: srv.URL + "/api/v1", key: "k", http: srv.Client(), poll: time.Millisecond}
	var tally setTally
	tally.retakes = map[string]int{}
	for _, s := range samples {
		if err := b.uploadSample(context.Background(), s, &tally); err != nil {
			t.Fatal(err)
		}
	}
	if tally.photos != 4 || tally.readable != 3 || tally.exact != 1 || tally.wrong != 1 || tally.unreadableRead != 1 ||
		tally.retakes["glare"] != 1 || tally.completed != 3 || tally.photoSource != 3 {
		t.Errorf("tally: %+v", tally)
	}
	first := ids[0].Fields
	if c := created[0]; c["lastname"] != strings.ToLower(first.Surname) || c["firstname"] != strings.ToLower(first.GivenNames) ||
		c["birthdate"] != "19"+first.BirthDate[:2]+"-"+first.BirthDate[2:4]+"-"+first.BirthDate[4:] && c["birthdate"] != "20"+first.BirthDate[:2]+"-"+first.BirthDate[2:4]+"-"+first.BirthDate[4:] {
		t.Errorf("the customer: %v, the document: %+v", c, first)
	}
}
