package face

import (
	"go/build"
	"path/filepath"
)

// PackageVersion is the version of @vladmandic/face-api the models come
// from.
const PackageVersion = "1.7.15"

// DefaultDir is where the Makefile installs the models:
// $GOPATH/bin/face-api-VERSION/model, beside the other tools it installs.
func DefaultDir() string {
	return filepath.Join(build.Default.GOPATH, "bin", "face-api-"+PackageVersion, "model")
}
