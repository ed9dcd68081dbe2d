package selfie

import (
	"context"
	"image"
	"math/rand/v2"
	"testing"

	"github.com/kycflow/kycflow/engines/docgen"
	"github.com/kycflow/kycflow/engines/docimage"
	"github.com/kycflow/kycflow/engines/mrz"
)

// The judge end to end on a person the generator draws: a face turning
// and looking up as the challenge asks passes liveness, the same frame
// repeated is a still image, and the face printed as a generated
// passport's portrait — photographed and decoded as an upload is — is
// found and matched. (Agreement with the generator, not accuracy: drawn
// faces are much alike; BENCHMARKS.md has the real faces' figures.)
func TestDrawnPerson(t *testing.T) {
	e := engine(t)
	id := docgen.RandomIdentity(rand.New(rand.NewPCG(3, 4)), mrz.TD3)
	id.Portrait = docgen.DrawFace(300, 400, docgen.FacePose{})
	b, err := docgen.Snapshot(id, 12, docgen.SharpPhone, 1)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := docimage.DecodeGray(b, docimage.Info{Format: docimage.JPEG, Orientation: 1})
	if err != nil {
		t.Fatal(err)
	}
	steps := []Step{TurnRight, LookUp} // a detector's pass an image: few of them, slow under -race
	first := docgen.DrawFace(640, 480, docgen.FacePose{})
	frames := []image.Image{first, docgen.DrawFace(640, 480, docgen.StepPoses[string(TurnRight)]), docgen.DrawFace(640, 480, docgen.StepPoses[string(LookUp)])}
	r, err := Decide(context.Background(), e, []image.Image{doc}, frames, steps, DefaultThresholds)
	if err != nil || r.Retake != "" || r.Liveness.Outcome != Clear || r.Match == nil || r.Match.Outcome != Clear {
		t.Errorf("the person: %+v, match %+v, %v", r, r.Match, err)
	}
	if r, _ := Decide(context.Background(), e, []image.Image{doc}, []image.Image{first, first, first}, steps, DefaultThresholds); r.Liveness.Reason != StillImage {
		t.Errorf("one frame thrice: liveness %+v", r.Liveness)
	}
}
