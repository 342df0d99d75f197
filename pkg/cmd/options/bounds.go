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

package options

import (
	"fmt"
	"strconv"
	"time"
)

// absurdFactor is how far past its default a limit may be set. A limit bounds what one request
// (or one plugin run) may cost; a thousand times the cost we chose as the default is no longer
// a bound but a typo or an attempt to switch the bound off, and values near the top of an int
// would overflow the memory model's arithmetic (bytes times a factor), so they are refused at
// start-up rather than believed.
const absurdFactor = 1000

// limit is one limit flag's value, the least it may be and its default, which sets the most
// it may be (absurdFactor times it).
type limit struct {
	flag            string
	value, min, def int64
	// duration formats the values as time.Duration.
	duration bool
}

// max is the most the limit may be.
func (l limit) max() int64 { return l.def * absurdFactor }

func (l limit) format(v int64) string {
	if l.duration {
		return time.Duration(v).String()
	}
	return strconv.FormatInt(v, 10)
}

// check reports the limit's value when it is below its least or past its most, naming the flag.
// Zero or a negative value would silently mean the default further down, so it is refused too.
func (l limit) check() error {
	switch {
	case l.value < l.min && l.min == 1:
		return fmt.Errorf("--%s must be positive, got %s", l.flag, l.format(l.value))
	case l.value < l.min:
		return fmt.Errorf("--%s must be at least %s, got %s", l.flag, l.format(l.min), l.format(l.value))
	case l.value > l.max():
		return fmt.Errorf("--%s must be at most %s (%d times its default, %s), got %s",
			l.flag, l.format(l.max()), absurdFactor, l.format(l.def), l.format(l.value))
	}
	return nil
}

// checkLimits reports every limit out of its range, all at once.
func checkLimits(limits ...limit) []error {
	var errs []error
	for _, l := range limits {
		if err := l.check(); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// count and duration make the limits of int and time.Duration flags; min is 1 unless said.
func count(flag string, value, def int) limit {
	return limit{flag: flag, value: int64(value), min: 1, def: int64(def)}
}

func duration(flag string, value, def time.Duration) limit {
	return limit{flag: flag, value: int64(value), min: 1, def: int64(def), duration: true}
}
