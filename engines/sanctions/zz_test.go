package sanctions

import (
	"fmt"
	"slices"
	"testing"

	"github.com/kycflow/kycflow/engines/screeneval"
)

func TestZZSaiyid(t *testing.T) {
	un, ofac := realUN(t), realOFAC(t)
	everyone := slices.Concat(onList(screeneval.LatinOnly(un), "un"), onList(ofac, "ofac"))
	all := Build(everyone, Options{})
	for _, q := range []string{"Abdul Saiyid", "Abdul Manam Saiyid", "Abd Saiyid", "Abdul Sayyid"} {
		fmt.Println(q, normalize(q, false).variants)
		for _, h := range all.Search(Query{Name: q}, 5) {
			fmt.Println("  ", h.EntityID, h.MatchedName, h.Score, h.Explanation)
		}
	}
	fmt.Println(normalize("Abdul Man’am Saiyid", false).variants)
}
