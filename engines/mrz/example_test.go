package mrz_test

import (
	"fmt"
	"time"

	"github.com/kycflow/kycflow/engines/mrz"
)

func Example() {
	// The ICAO 9303 part 4 specimen, pasted in lowercase, with an OCR 'O'
	// in the date of birth and a wrong expiry-date check digit (8 for 9).
	d, err := mrz.Parse(`
		p<utoeriksson<<anna<maria<<<<<<<<<<<<<<<<<<<
		l898902c36uto74O8122f1204158ze184226b<<<<<10
	`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Format, d.DocumentNumber, d.Surname+",", d.GivenNames)
	year, _ := d.BirthDate.BirthYear(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	fmt.Println("born", year, "expired:", d.Expired(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
	for _, c := range d.Corrections {
		fmt.Println("corrected", c)
	}
	for _, e := range d.Validate() {
		fmt.Println(e.Field, e.Kind, string(e.Expected), string(e.Found))
	}
	// Output:
	// TD3 L898902C3 ERIKSSON, ANNA MARIA
	// born 1974 expired: true
	// corrected birth_date: line 2 position 16: read 'O' as '0'
	// expiry_date check_digit 9 8
	// composite check_digit 9 0
}
