# Kept in history only: builds tools/probes/wavefront-shapes.cpp on a configured cuda build.
# bash build.sh BUILD_DIR SRC_ROOT PROBE.cpp EXE [extra nvcc flags]: compiles the probe with the
# flags of the cuda build's test_hostile.cpp (includes from SRC_ROOT) and links it as that test.
B=$1; S=$2; P=$3; E=$4; shift 4
cd $B || exit 1
old=$(grep -o '^CMAKE_HOME_DIRECTORY:INTERNAL=.*' CMakeCache.txt | cut -d= -f2)
cc=$(ninja -t commands tests/unison_tests_hostile_cuda | grep 'test_hostile.cpp' | grep nvcc | head -1)
ln=$(ninja -t commands tests/unison_tests_hostile_cuda | tail -1)
cc=$(echo "$cc" | sed -E "s# -MD -MT [^ ]+ -MF [^ ]+##; s# -c [^ ]+test_hostile.cpp -o [^ ]+# -c $P -o $E.o#; s#-I$old/include #-I$S/include #; s#-I$old/backends/include #-I$S/backends/include #")
ln=$(echo "$ln" | sed -E "s#tests/CMakeFiles/unison_tests_hostile_cuda.dir/test_hostile.cpp.o#$E.o#; s#-o tests/unison_tests_hostile_cuda#-o $E#")
echo "$cc $*" > $E.cmd
eval "$cc $*" || exit 1
eval "$ln" || exit 1
echo built $E
