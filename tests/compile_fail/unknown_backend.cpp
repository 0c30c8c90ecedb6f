// An execution space that unison/backends/tuning.hpp has no values for is refused at compile
// time, naming the family, instead of running with values chosen for other hardware.
#include <unison/backends/tuning.hpp>
struct NewBackend {};
int f() { return unison::backends::HistogramTuning<NewBackend>::team_size; }
