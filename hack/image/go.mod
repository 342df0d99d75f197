// Module image assembles the stencil-apiserver container image (make image) with
// go-containerregistry, apart from the product's go.mod: the server never links it.
module stencil.dev/stencil/hack/image

go 1.26.0

godebug default=go1.26

require github.com/google/go-containerregistry v0.22.1

require (
	github.com/klauspost/compress v1.19.2 // indirect
	github.com/opencontainers/go-digest v1.0.0 // indirect
	github.com/opencontainers/image-spec v1.1.1 // indirect
	golang.org/x/sync v0.22.0 // indirect
)
