/*
Copyright The Stencil Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package jsonbytes is the one JSON toolchain of the engine and the transformers, and its YAML
// writer. It is a pure library: it imports nothing of ours.
//
// It works at two levels, both faster than encoding/json's reflection, which would otherwise be
// the largest fixed cost of a request:
//
//   - bytes: helpers that walk JSON already validated and compacted (Compact), without error
//     handling, and write JSON strings (AppendQuoted). The engine splits and copies object bytes
//     with them and never builds a tree.
//   - trees: DecodeObjects builds the tree encoding/json builds with UseNumber (maps, slices,
//     json.Number) from the engine's objects, DecodeObject from JSON of any origin,
//     EncodeObjects writes it back with sorted keys, and CopyObjects copies it. The
//     transformers edit these trees.
//
// ToYAML writes JSON as YAML for people to read, keeping member order and exact numbers, and
// Indent indents it as encoding/json does. Both check what they are given; the methods of
// Compacted write JSON known to be valid and compact (the engine's and the encoder's) without
// checking it again.
package jsonbytes
