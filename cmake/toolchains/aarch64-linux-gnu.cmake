# Cross-compiling for 64-bit ARM Linux with Debian's cross compilers (g++-aarch64-linux-gnu), the
# libraries of the target from Debian's multiarch packages (libsleef-dev:arm64); the tests and
# programs run under qemu-user (qemu-user-static), which CTest calls for each test.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# qemu's -cpu max: every extension qemu emulates (SVE among them). -L: the cross compiler's C
# library and runtime (its /lib is /usr/aarch64-linux-gnu/lib), first in the search path: the
# multiarch C library that libsleef-dev:arm64 brings (/lib/aarch64-linux-gnu) is another build,
# which the cross loader must not load (threads then hang at creation).
set(CMAKE_CROSSCOMPILING_EMULATOR
    qemu-aarch64-static -cpu max -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=/lib)
# Programs and headers of the build machine, libraries and packages of the target.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
