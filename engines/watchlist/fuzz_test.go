package watchlist

import (
	"strings"
	"testing"
	"unicode"
)

// Whatever an alias holds, unAliasNames makes names of it without
// panicking, each trimmed, none empty or holding a ";", and none with a
// letter the alias does not have.
func FuzzUNAliasNames(f *testing.F) {
	for _, s := range []string{"Qasim Soleimani; Qasem Sulaimani", "Mohammed Sabet; Mohammad Sabet b) M. Javad Kareemi Sabet",
		"حاجى مالك نورزى (Hajji Malik Noorzai; Haji Malek Noorzai)", "Abu Muhammad (original script: Абу Мухаммад)",
		"Safia Al-Hadad, born 1 Jan. 1953 (Oman passport no.03)", ") Abdelrahman (", "((a;b)c)d;", `"HASSAN, Sheikh"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, n := range unAliasNames(s) {
			if n == "" || n != strings.TrimSpace(n) || strings.Contains(n, ";") {
				t.Fatalf("%q: name %q", s, n)
			}
			for _, r := range n {
				if unicode.IsLetter(r) && !strings.ContainsRune(s, r) {
					t.Fatalf("%q: name %q has %q", s, n, r)
				}
			}
		}
	})
}
