package faceeval

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/draw"
	"image/jpeg"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kycflow/kycflow/engines/face"
	"github.com/kycflow/kycflow/engines/selfie"
)

// Spoof is a kind of attack on the liveness challenge the evaluation
// makes from one photo: the picture held still (recompressed as a camera
// would), slid and turned in the hand, or another person's photo for one
// step's frame.
type Spoof string

const (
	Still   Spoof = "still"
	Slid    Spoof = "slid"
	Swapped Spoof = "swapped"
)

// LivenessReport is what the liveness rules made of a folder's people:
// genuine attempts (a person's own photos answering a drawn challenge, as
// a person following it would) and spoofs of each kind.
type LivenessReport struct {
	People int
	// Genuine attempts answered by a person's photos; first frames for
	// which ten challenges drawn each had a step no other photo of the
	// person shows are Unanswerable, and not judged.
	Genuine, GenuineClear, Unanswerable int
	GenuineFails                        map[selfie.Reason]int
	// Spoofs tried and failed, by kind; Passed names the photos of those
	// that passed (a hole).
	Tried, Failed map[Spoof]int
	Passed        map[Spoof][]string
}

// Posed is a photo framed as a selfie camera frames a face (Image; Photo
// as it was read), and what the live view makes of it.
type Posed struct {
	File, Person string
	Image, Photo image.Image
	Glance       selfie.Glance
}

// PosePeople frames each photo as a selfie camera would and keeps those
// the live view would take, by person; people are in order.
func PosePeople(e *face.Engine, dir string, photos []Photo) (people []string, byPerson map[string][]Posed, err error) {
	byPerson = map[string][]Posed{}
	for _, p := range photos {
		im, err := decode(filepath.Join(dir, p.File))
		if err != nil {
			return nil, nil, err
		}
		f := framed(im)
		g := selfie.Look(e, f)
		if !g.Found || g.Hint != "" && g.Hint != selfie.OffCentre {
			continue
		}
		if _, ok := byPerson[p.Person]; !ok {
			people = append(people, p.Person)
		}
		byPerson[p.Person] = append(byPerson[p.Person], Posed{p.File, p.Person, f, im, g})
	}
	slices.Sort(people)
	return people, byPerson, nil
}

// Liveness judges challenges answered by each person's photos (up to
// attempts a person, each photo in turn the first frame) and the spoofs
// made from those first frames, with selfie.Decide as the worker does.
func Liveness(e *face.Engine, dir string, photos []Photo, attempts int, rng *rand.Rand) (LivenessReport, error) {
	r := LivenessReport{GenuineFails: map[selfie.Reason]int{}, Tried: map[Spoof]int{}, Failed: map[Spoof]int{}, Passed: map[Spoof][]string{}}
	people, byPerson, err := PosePeople(e, dir, photos)
	if err != nil {
		return r, err
	}
	for pi, person := range people {
		own := byPerson[person]
		if len(own) < 3 {
			continue
		}
		r.People++
		for a := 0; a < attempts && a < len(own); a++ {
			first := own[a]
			// A person in several poses shows some steps only: draw until a
			// challenge their photos answer, as many times as there are
			// challenges of two steps.
			var steps []selfie.Step
			var frames []image.Image
			ok := false
			for range 10 {
				steps = selfie.NewChallenge(rng, 2)
				if frames, ok = Answer(first, own, steps); ok {
					break
				}
			}
			if !ok {
				r.Unanswerable++
				continue
			}
			r.Genuine++
			v := decide(e, frames, steps)
			switch {
			case v.Retake != "":
				r.GenuineFails[v.Retake]++
			case v.Liveness.Outcome == selfie.Clear:
				r.GenuineClear++
			default:
				r.GenuineFails[v.Liveness.Reason]++
			}
			// The spoofs, from the same first frame and challenge.
			other := byPerson[people[(pi+1)%len(people)]]
			for _, kind := range []Spoof{Still, Slid, Swapped} {
				spoof, ok := spoofFrames(kind, first, frames, other, steps)
				if !ok {
					continue
				}
				r.Tried[kind]++
				if v := decide(e, spoof, steps); v.Retake == "" && v.Liveness.Outcome == selfie.Clear {
					r.Passed[kind] = append(r.Passed[kind], first.File)
				} else {
					r.Failed[kind]++
				}
			}
		}
	}
	return r, nil
}

// Answer picks, for each step in turn, another of the person's photos
// whose pose shows it against first's: frames a person following the
// challenge would give. ok is false when some step is shown by none.
func Answer(first Posed, own []Posed, steps []selfie.Step) ([]image.Image, bool) {
	frames := []image.Image{first.Image}
	for _, st := range steps {
		found := false
		for _, p := range own {
			if p.File != first.File && p.Glance.Shows(st, first.Glance.Pose) {
				frames, found = append(frames, p.Image), true
				break
			}
		}
		if !found {
			return nil, false
		}
	}
	return frames, true
}

// spoofFrames makes the frames of kind for steps from first: still, the
// picture recompressed; slid, moved, scaled and turned a little in each
// frame; swapped, the genuine frames with the last replaced by another
// person's photo, one that shows the last step where there is one. ok is
// false when there is no other person.
func spoofFrames(kind Spoof, first Posed, genuine []image.Image, other []Posed, steps []selfie.Step) ([]image.Image, bool) {
	n := len(steps) + 1
	var out []image.Image
	switch kind {
	case Still:
		for i := range n {
			out = append(out, recompress(first.Image, 90-10*i))
		}
	case Slid:
		for i := range n {
			f := float64(i)
			out = append(out, recompress(affine(first.Image, 9*f, -6*f, 1+0.04*f, 0.05*f), 85))
		}
	case Swapped:
		if len(other) == 0 {
			return nil, false
		}
		swap := other[0]
		for _, p := range other {
			if p.Glance.Shows(steps[len(steps)-1], first.Glance.Pose) {
				swap = p
				break
			}
		}
		out = append(slices.Clone(genuine[:len(genuine)-1]), swap.Image)
	}
	return out, true
}

func recompress(im image.Image, quality int) image.Image {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, im, &jpeg.Options{Quality: quality}); err != nil {
		return im
	}
	out, err := jpeg.Decode(&b)
	if err != nil {
		return im
	}
	return out
}

// affine is im moved by (dx, dy), scaled by s and turned by a radians
// about its centre (nearest pixel; outside, the edge's grey).
func affine(im image.Image, dx, dy, s, a float64) image.Image {
	b := im.Bounds()
	src := image.NewRGBA(b)
	draw.Draw(src, b, im, b.Min, draw.Src)
	out := image.NewRGBA(b)
	cx, cy := float64(b.Dx())/2, float64(b.Dy())/2
	cos, sin := math.Cos(a), math.Sin(a)
	for y := range b.Dy() {
		for x := range b.Dx() {
			u, v := (float64(x)-cx-dx)/s, (float64(y)-cy-dy)/s
			sx, sy := int(cos*u+sin*v+cx), int(-sin*u+cos*v+cy)
			sx, sy = min(max(sx, 0), b.Dx()-1), min(max(sy, 0), b.Dy()-1)
			copy(out.Pix[out.PixOffset(x, y):out.PixOffset(x, y)+4], src.Pix[src.PixOffset(sx, sy):src.PixOffset(sx, sy)+4])
		}
	}
	return out
}

// decide is selfie.Decide without a document, at the service's
// thresholds; an evaluation has no deadline, so it never ends early.
func decide(e *face.Engine, frames []image.Image, steps []selfie.Step) selfie.Result {
	r, _ := selfie.Decide(context.Background(), e, nil, frames, steps, selfie.DefaultThresholds)
	return r
}

// PrintLiveness writes the report.
func PrintLiveness(w io.Writer, r LivenessReport) {
	pct := func(a, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }
	fmt.Fprintf(w, "liveness: %d people; %d genuine attempts (%d first frames answered no challenge drawn)\n", r.People, r.Genuine, r.Unanswerable)
	fmt.Fprintf(w, "  genuine clear %d of %d (%.1f %%)", r.GenuineClear, r.Genuine, pct(r.GenuineClear, r.Genuine))
	var fails []string
	for reason, n := range r.GenuineFails {
		fails = append(fails, fmt.Sprintf("%s %d", reason, n))
	}
	slices.Sort(fails)
	if len(fails) > 0 {
		fmt.Fprintf(w, "; refused: %s", strings.Join(fails, ", "))
	}
	fmt.Fprintln(w)
	for _, kind := range []Spoof{Still, Slid, Swapped} {
		fmt.Fprintf(w, "  spoof %s: failed %d of %d (%.1f %%)", kind, r.Failed[kind], r.Tried[kind], pct(r.Failed[kind], r.Tried[kind]))
		if len(r.Passed[kind]) > 0 {
			fmt.Fprintf(w, "; passed: %s", strings.Join(r.Passed[kind], " "))
		}
		fmt.Fprintln(w)
	}
}
