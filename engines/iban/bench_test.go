package iban

import "testing"

func BenchmarkValidate(b *testing.B) {
	inputs := []string{
		"NL91ABNA0417164300",
		"DE89 3704 0044 0532 0130 00",
		"GB29NWBK60161331926819",
		"MT84MALT011000012345MTLCAST001S",
		"FR1420041010050500013M02607", // bad checksum
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		Validate(inputs[i%len(inputs)])
	}
}
