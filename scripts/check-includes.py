#!/usr/bin/env python3
"""Checks that every C and C++ file of the repository includes the standard header of each
standard-library name it uses, itself or through the project's own headers that it includes,
never through another standard header or a dependency's header (Kokkos, GoogleTest, ...).

Standard libraries change which headers include which: GCC 13's <string> and <memory> no longer
bring in <cstdint>, GCC 14's no longer bring in <algorithm>, and libc++ removes its own transitive
includes release by release. Code that compiles today through such a chain stops compiling on the
next compiler. This check finds every such use on any machine, whatever its compiler, because it
reads the sources instead of compiling them.

What it reads: `std::name` (and `std::name::...`, `std::chrono::...`) in code, outside comments
and literals; and the C names `int8_t` ... `uint64_t`, `intptr_t`, `uintptr_t`, `intmax_t`,
`uintmax_t` without `std::`. Each name has the headers that declare it in the table below
(several where the standard declares it in several); a header satisfies a use where the file or
a project header it includes (transitively, through project headers only) includes it, or a
header that the standard requires it to include (<iostream> brings <istream> and <ostream>, ...).
The table is closed: a `std::` name it lacks is reported too, to be added with its header.

    python3 scripts/check-includes.py             every tracked C and C++ file
    python3 scripts/check-includes.py FILE...     these files (in the repository or not)
    python3 scripts/check-includes.py --self-test its own test on files it writes

Prints each finding as `file:line: std::name needs <header>`; exits 1 if there is any.
"""
import os
import re
import subprocess
import sys
import tempfile

# Each standard name (the first component after std::) and the headers that declare it; names of
# namespaces (chrono, filesystem, ...) take their header whatever follows them.
HEADERS = {
    "<algorithm>": """adjacent_find all_of any_of binary_search clamp copy copy_backward copy_if
        copy_n count count_if equal equal_range fill fill_n find find_end find_first_of find_if
        find_if_not for_each for_each_n generate generate_n includes inplace_merge is_heap
        is_partitioned is_permutation is_sorted is_sorted_until iter_swap lexicographical_compare
        lower_bound make_heap max max_element merge min min_element minmax minmax_element mismatch
        next_permutation none_of nth_element partial_sort partial_sort_copy partition
        partition_copy partition_point pop_heap prev_permutation push_heap remove remove_copy
        remove_copy_if remove_if replace replace_copy replace_copy_if replace_if reverse
        reverse_copy rotate rotate_copy sample search search_n set_difference set_intersection
        set_symmetric_difference set_union shuffle sort sort_heap stable_partition stable_sort
        swap_ranges transform unique unique_copy upper_bound""",
    "<any>": "any any_cast bad_any_cast make_any",
    "<array>": "array to_array",
    "<atomic>": """atomic atomic_flag atomic_ref atomic_thread_fence atomic_signal_fence
        memory_order memory_order_relaxed memory_order_consume memory_order_acquire
        memory_order_release memory_order_acq_rel memory_order_seq_cst kill_dependency""",
    "<bit>": "bit_cast bit_ceil bit_floor bit_width countl_zero countr_zero endian has_single_bit popcount rotl rotr",
    "<bitset>": "bitset",
    "<cassert>": "",
    "<cctype>": "isalnum isalpha isblank iscntrl isdigit isgraph islower isprint ispunct isspace isupper isxdigit tolower toupper",
    "<cerrno>": "",
    "<cfenv>": "feclearexcept fegetenv fegetround feholdexcept fenv_t feraiseexcept fesetenv fesetround fetestexcept feupdateenv fexcept_t",
    "<cfloat>": "",
    "<charconv>": "chars_format from_chars from_chars_result to_chars to_chars_result",
    "<chrono>": "chrono",
    "<cinttypes>": "imaxabs imaxdiv strtoimax strtoumax",
    "<climits>": "",
    "<clocale>": "setlocale localeconv lconv",
    "<cmath>": """abs acos acosh asin asinh atan atan2 atanh cbrt ceil copysign cos cosh erf erfc exp
        exp2 expm1 fabs fdim floor fma fmax fmin fmod fpclassify frexp hypot ilogb isfinite
        isgreater isgreaterequal isinf isless islessequal islessgreater isnan isnormal
        isunordered lerp ldexp lgamma llrint llround log log10 log1p log2 logb lrint lround modf
        nan nanf nanl nearbyint nextafter nexttoward pow remainder remquo rint round scalbln scalbn
        signbit sin sinh sqrt tan tanh tgamma trunc float_t double_t""",
    "<compare>": "partial_ordering strong_ordering weak_ordering compare_three_way",
    "<complex>": "complex",
    "<concepts>": "convertible_to derived_from floating_point integral same_as signed_integral unsigned_integral",
    "<condition_variable>": "condition_variable condition_variable_any cv_status",
    "<csetjmp>": "jmp_buf longjmp",
    "<csignal>": "raise sig_atomic_t signal",
    "<cstdarg>": "va_list",
    "<cstddef>": "byte max_align_t nullptr_t ptrdiff_t size_t",
    "<cstdint>": """int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t intptr_t
        uintptr_t intmax_t uintmax_t int_fast8_t int_fast16_t int_fast32_t int_fast64_t
        int_least8_t int_least16_t int_least32_t int_least64_t uint_fast8_t uint_fast16_t
        uint_fast32_t uint_fast64_t uint_least8_t uint_least16_t uint_least32_t uint_least64_t""",
    "<cstdio>": """FILE clearerr fclose feof ferror fflush fgetc fgets fopen fprintf fputc fputs fread
        freopen fscanf fseek ftell fwrite getc getchar perror printf putc putchar puts remove
        rename rewind scanf setbuf setvbuf snprintf sprintf sscanf tmpfile vfprintf vprintf
        vsnprintf vsprintf""",
    "<cstdlib>": """abort aligned_alloc at_exit atexit atof atoi atol atoll bsearch calloc div div_t
        exit free getenv labs ldiv llabs lldiv malloc qsort quick_exit rand realloc srand strtod
        strtof strtol strtold strtoll strtoul strtoull system _Exit""",
    "<cstring>": """memchr memcmp memcpy memmove memset strcat strchr strcmp strcpy strcspn strerror
        strlen strncat strncmp strncpy strpbrk strrchr strspn strstr strtok""",
    "<ctime>": "clock clock_t difftime gmtime localtime mktime strftime time time_t timespec tm",
    "<cwchar>": "wcslen wmemcpy",
    "<deque>": "deque",
    "<exception>": """exception exception_ptr current_exception make_exception_ptr nested_exception
        rethrow_exception rethrow_if_nested terminate throw_with_nested uncaught_exceptions
        bad_exception""",
    "<execution>": "execution",
    "<filesystem>": "filesystem",
    "<forward_list>": "forward_list",
    "<fstream>": "basic_filebuf basic_fstream basic_ifstream basic_ofstream filebuf fstream ifstream ofstream",
    "<functional>": """bind bind_front cref divides equal_to function greater greater_equal hash
        invoke less less_equal logical_and logical_not logical_or mem_fn minus modulus multiplies
        negate not_equal_to not_fn placeholders plus ref reference_wrapper""",
    "<future>": "async future launch packaged_task promise shared_future",
    "<initializer_list>": "initializer_list",
    "<iomanip>": "get_money get_time put_money put_time quoted resetiosflags setbase setfill setiosflags setprecision setw",
    "<ios>": """basic_ios boolalpha dec defaultfloat fixed hex hexfloat internal ios ios_base left
        noboolalpha noshowbase noshowpoint noshowpos noskipws nounitbuf nouppercase oct right
        scientific showbase showpoint showpos skipws streamoff streamsize unitbuf uppercase
        wios""",
    "<iosfwd>": "",
    "<iostream>": "cerr cin clog cout wcerr wcin wclog wcout",
    "<istream>": "basic_iostream basic_istream iostream istream ws",
    "<iterator>": """advance back_inserter back_insert_iterator begin bidirectional_iterator_tag cbegin
        cend crbegin crend data distance empty end forward_iterator_tag front_inserter inserter
        input_iterator_tag istream_iterator istreambuf_iterator iterator_traits make_move_iterator
        make_reverse_iterator move_iterator next ostream_iterator ostreambuf_iterator
        output_iterator_tag prev random_access_iterator_tag rbegin rend reverse_iterator size
        ssize""",
    "<limits>": "numeric_limits float_denorm_style float_round_style",
    "<list>": "list",
    "<locale>": "locale use_facet has_facet",
    "<map>": "map multimap",
    "<memory>": """addressof align allocate_shared allocator allocator_traits assume_aligned
        bad_weak_ptr const_pointer_cast default_delete destroy destroy_at dynamic_pointer_cast
        enable_shared_from_this make_shared make_unique owner_less pointer_traits
        reinterpret_pointer_cast shared_ptr static_pointer_cast to_address unique_ptr
        uninitialized_copy uninitialized_fill weak_ptr""",
    "<memory_resource>": "pmr",
    "<mutex>": "call_once lock lock_guard mutex once_flag recursive_mutex scoped_lock timed_mutex try_lock unique_lock adopt_lock defer_lock try_to_lock",
    "<new>": "align_val_t bad_alloc bad_array_new_length hardware_constructive_interference_size hardware_destructive_interference_size launder nothrow nothrow_t",
    "<numbers>": "numbers",
    "<numeric>": "accumulate adjacent_difference exclusive_scan gcd inclusive_scan inner_product iota lcm midpoint partial_sum reduce transform_exclusive_scan transform_inclusive_scan transform_reduce",
    "<optional>": "bad_optional_access make_optional nullopt nullopt_t optional",
    "<ostream>": "basic_ostream endl ends flush ostream",
    "<queue>": "priority_queue queue",
    "<random>": """bernoulli_distribution binomial_distribution default_random_engine
        discrete_distribution exponential_distribution gamma_distribution
        generate_canonical geometric_distribution lognormal_distribution minstd_rand mt19937
        mt19937_64 normal_distribution poisson_distribution random_device seed_seq
        uniform_int_distribution uniform_real_distribution""",
    "<ratio>": "atto centi deca deci exa femto giga hecto kilo mega micro milli nano peta pico ratio tera",
    "<regex>": "basic_regex regex regex_constants regex_error regex_match regex_replace regex_search smatch cmatch sregex_iterator",
    "<set>": "multiset set",
    "<shared_mutex>": "shared_lock shared_mutex shared_timed_mutex",
    "<span>": "dynamic_extent span",
    "<sstream>": "basic_istringstream basic_ostringstream basic_stringbuf basic_stringstream istringstream ostringstream stringbuf stringstream",
    "<stack>": "stack",
    "<stdexcept>": "domain_error invalid_argument length_error logic_error out_of_range overflow_error range_error runtime_error underflow_error",
    "<streambuf>": "basic_streambuf streambuf",
    "<string>": "basic_string char_traits getline stod stof stoi stol stold stoll stoul stoull string to_string to_wstring u16string u32string wstring",
    "<string_view>": "basic_string_view string_view wstring_view",
    "<system_error>": "errc error_category error_code error_condition generic_category make_error_code system_category system_error",
    "<thread>": "jthread this_thread thread",
    "<tuple>": "apply forward_as_tuple get ignore make_from_tuple make_tuple tie tuple tuple_cat tuple_element tuple_element_t tuple_size tuple_size_v",
    "<type_traits>": "",  # filled below: every is_*, *_t and the traits' classes
    "<typeindex>": "type_index",
    "<typeinfo>": "bad_cast bad_typeid type_info",
    "<unordered_map>": "unordered_map unordered_multimap",
    "<unordered_set>": "unordered_multiset unordered_set",
    "<utility>": """as_const cmp_equal cmp_greater cmp_less declval exchange forward in_place
        in_place_t index_sequence index_sequence_for integer_sequence make_index_sequence
        make_integer_sequence make_pair move move_if_noexcept pair piecewise_construct swap
        to_underlying unreachable""",
    "<valarray>": "valarray",
    "<variant>": "bad_variant_access get_if holds_alternative monostate variant variant_alternative variant_size visit",
    "<vector>": "vector",
    "<version>": "",
}
TYPE_TRAITS = """add_const add_const_t add_cv add_lvalue_reference add_lvalue_reference_t
    add_pointer add_pointer_t add_rvalue_reference add_rvalue_reference_t aligned_storage bool_constant common_type
    common_type_t conditional conditional_t conjunction conjunction_v decay decay_t disjunction
    disjunction_v enable_if enable_if_t extent extent_v false_type has_unique_object_representations
    integral_constant invoke_result invoke_result_t is_constant_evaluated make_signed
    make_signed_t make_unsigned make_unsigned_t negation negation_v rank rank_v remove_all_extents
    remove_const remove_const_t remove_cv remove_cv_t remove_cvref remove_cvref_t remove_extent
    remove_pointer remove_pointer_t remove_reference remove_reference_t remove_volatile
    remove_volatile_t result_of true_type type_identity type_identity_t underlying_type
    underlying_type_t void_t"""
# Names declared in several headers by the standard: any one of them will do.
ALSO = {
    "size_t": "<cstdio> <cstdlib> <cstring> <ctime> <cwchar>",
    "abs": "<cstdlib>",
    "labs": "<cmath>", "llabs": "<cmath>",
    "swap": "<algorithm> <string_view>",  # (the containers' swap overloads: in their headers)
    "getline": "<istream>",
    "streamsize": "<iosfwd>",
    "hash": "<string> <string_view> <memory> <optional> <variant> <typeindex> <system_error> <bitset> <thread>",
    "get": "<array> <utility> <variant>",
    "tuple_size": "<array> <utility>", "tuple_element": "<array> <utility>",
    "begin": "<array> <deque> <forward_list> <list> <map> <regex> <set> <span> <string> <string_view> <unordered_map> <unordered_set> <vector>",
}
for name in ("end cbegin cend rbegin rend crbegin crend size ssize empty data").split():
    ALSO[name] = ALSO["begin"]
# Headers the standard requires to include others (their synopses' #include lines).
BRINGS = {
    "<iostream>": "<ios> <streambuf> <istream> <ostream> <iosfwd>",
    "<ios>": "<iosfwd>",
    "<istream>": "<ios> <ostream> <iosfwd>",
    "<ostream>": "<ios> <iosfwd>",
    "<fstream>": "<istream> <ostream> <ios> <iosfwd>",
    "<sstream>": "<istream> <ostream> <ios> <iosfwd>",
    "<streambuf>": "<ios> <iosfwd>",
    "<cinttypes>": "<cstdint>",
    "<inttypes.h>": "<stdint.h>",
    "<utility>": "<compare> <initializer_list>",
    "<random>": "<initializer_list>",
    "<chrono>": "<compare>",
    # (their exceptions derive from std::exception, which they must so define)
    "<stdexcept>": "<exception>",
    "<new>": "<exception>",
    "<typeinfo>": "<exception>",
}
for container in ("<array> <deque> <forward_list> <list> <map> <set> <string> <unordered_map> "
                  "<unordered_set> <vector> <valarray> <regex>").split():
    BRINGS[container] = "<compare> <initializer_list>"
# The C headers of the C-compatibility ones (the unqualified C names take either).
C_HEADER = {f"<c{h}>": f"<{h}.h>" for h in ("assert ctype errno fenv float inttypes limits "
                                             "locale math setjmp signal stdarg stddef stdint "
                                             "stdio stdlib string time wchar").split()}

NAMES = {}
for header, names in HEADERS.items():
    for name in names.split():
        NAMES.setdefault(name, set()).add(header)
for name in TYPE_TRAITS.split():
    NAMES.setdefault(name, set()).add("<type_traits>")
for name, headers in ALSO.items():
    NAMES.setdefault(name, set()).update(headers.split())
STANDARD = set(HEADERS) | set(C_HEADER.values()) | {"<inttypes.h>"}
C_NAMES = set(HEADERS["<cstdint>"].split())

def is_trait(name):  # is_same_v, is_floating_point, ...: <type_traits>
    return re.fullmatch(r"is_\w+", name) is not None and name not in NAMES

SOURCE = re.compile(r".*\.(c|cc|cpp|cxx|cu|h|hh|hpp|hxx|cuh)(\.in)?$")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)

def strip_code(text):
    """The text with comments, string and character literals blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    pattern = re.compile(r'//[^\n]*|/\*.*?\*/|R"([^(\s]*)\((?:.|\n)*?\)\1"|"(?:\\.|[^"\\\n])*"'
                         r"|'(?:\\.|[^'\\\n])*'", re.S)
    for m in pattern.finditer(text):
        out.append(text[i:m.start()])
        out.append(re.sub(r"[^\n]", " ", m.group(0)))
        i = m.end()
    out.append(text[i:])
    return "".join(out)

def uses(text):
    """(line, the name as written, its first component) of every standard name used."""
    code = strip_code(text)
    # (#include lines are blanked by the literal's pattern only for "..."; <...> ones: drop them)
    code = re.sub(r"^\s*#\s*include[^\n]*", "", code, flags=re.M)
    # A macro's parameter after std:: (#define F(name) ... std::name(x)) is no name of its own.
    def macro(m):
        body = m.group(0)
        for p in m.group(1).replace(" ", "").split(","):
            body = re.sub(r"std::" + re.escape(p) + r"\b", lambda s: " " * len(s.group(0)), body)
        return body
    code = re.sub(r"^[ \t]*#[ \t]*define[ \t]+\w+\(([^)]*)\)(?:[^\n]*\\\n)*[^\n]*", macro, code,
                  flags=re.M)
    found = []
    for m in re.finditer(r"(?<![\w.>])(?:::)?std::(\w+)((?:::\w+)*)", code):
        found.append((code.count("\n", 0, m.start()) + 1, "std::" + m.group(1) + m.group(2),
                      m.group(1)))
    for m in re.finditer(r"(?<![\w:.>])(u?int(?:8|16|32|64|ptr|max)_t)\b", code):
        found.append((code.count("\n", 0, m.start()) + 1, m.group(1), None))
    return found

class Tree:
    """The project's files: which are its headers, and what each includes."""

    def __init__(self, root, files):
        self.root = root
        self.files = sorted(set(files))
        self.by_suffix = {}
        for f in self.files:
            parts = f.split("/")
            for k in range(len(parts)):
                self.by_suffix.setdefault("/".join(parts[k:]), []).append(f)
        # Headers the build generates from templates: configure_file(<x>.in include/<y>).
        self.generated = {}
        cmake = os.path.join(root, "CMakeLists.txt")
        if os.path.exists(cmake):
            with open(cmake, encoding="utf-8") as f:
                for m in re.finditer(r"configure_file\(\s*(\S+\.in)\s+include/(\S+?)[\s)]", f.read()):
                    self.generated[m.group(2)] = m.group(1)
        self.includes_cache = {}

    def resolve(self, including, kind, name):
        """The project file an include names, or None (a standard or a dependency's header)."""
        if kind == '"':
            local = os.path.normpath(os.path.join(os.path.dirname(including), name))
            if local in self.by_suffix.get(local, []) or local in self.files:
                return local
        if name in self.generated:
            return self.generated[name]
        matches = self.by_suffix.get(os.path.normpath(name), [])
        return matches[0] if len(matches) == 1 else None

    def read(self, path):
        with open(os.path.join(self.root, path), encoding="utf-8", errors="replace") as f:
            return f.read()

    def direct(self, path, text=None):
        """(standard headers, project files) that path includes itself."""
        if text is None and path in self.includes_cache:
            return self.includes_cache[path]
        if text is None:
            text = self.read(path)
        standard, project = set(), set()
        for m in INCLUDE.finditer(strip_comments_only(text)):
            kind, name = m.group(1), m.group(2).strip()
            resolved = self.resolve(path, kind, name)
            if resolved is not None:
                project.add(resolved)
            elif f"<{name}>" in STANDARD:
                standard.add(f"<{name}>")
        self.includes_cache[path] = (standard, project)
        return standard, project

    def available(self, path, text=None):
        """Standard headers a file has: its own, its project headers' (transitively), and what
        the standard requires those to include."""
        standard, project = self.direct(path, text)
        have, seen, todo = set(standard), set(), list(project)
        while todo:
            p = todo.pop()
            if p in seen or not os.path.exists(os.path.join(self.root, p)):
                continue
            seen.add(p)
            s, more = self.direct(p)
            have |= s
            todo.extend(more)
        grew = True
        while grew:
            extra = set()
            for h in have:
                extra |= set(BRINGS.get(h, "").split())
                if h in C_HEADER:
                    extra.add(C_HEADER[h])
            grew = not extra <= have
            have |= extra
        return have

def strip_comments_only(text):
    return re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)),
                  re.sub(r"//[^\n]*", "", text), flags=re.S)

def check_file(tree, path, text=None):
    """The findings for one file, as strings."""
    if text is None:
        text = tree.read(path)
    have = tree.available(path, text)
    findings, reported = [], set()
    for line, written, first in uses(text):
        if first is None:  # an unqualified C name
            wanted = {"<cstdint>", "<stdint.h>"}
        elif first in NAMES:
            wanted = NAMES[first]
        elif is_trait(first):
            wanted = {"<type_traits>"}
        else:
            key = ("unknown", first)
            if key not in reported:
                reported.add(key)
                findings.append(f"{path}:{line}: {written}: not in scripts/check-includes.py's "
                                "table; add it with its header")
            continue
        if wanted & have:
            continue
        key = (first or written, tuple(sorted(wanted)))
        if key in reported:
            continue
        reported.add(key)
        need = " or ".join(sorted(wanted))
        findings.append(f"{path}:{line}: {written} needs {need}, which neither the file nor the "
                        "project headers it includes include")
    return findings

def tracked_sources(root):
    listed = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True,
                            check=True).stdout.split("\n")
    return [f for f in listed if f and SOURCE.match(f)]

def run(root, paths=None):
    files = tracked_sources(root)
    tree = Tree(root, files)
    findings = []
    if paths:
        for p in paths:
            full = os.path.abspath(p)
            rel = os.path.relpath(full, root)
            with open(full, encoding="utf-8", errors="replace") as f:
                text = f.read()
            findings += check_file(tree, rel if not rel.startswith("..") else full, text)
        return findings, len(paths)
    for f in files:
        findings += check_file(tree, f)
    return findings, len(files)

def self_test():
    """Writes a small tree and checks what the check says of it."""
    cases = {
        # GCC 13's break: std::uint8_t through <string> alone.
        "a/old_tables.cpp": ("#include <string>\n#include \"report.hpp\"\n"
                             "unsigned f(const std::string& s) { return std::uint8_t(s[0]); }\n",
                             ["std::uint8_t needs <cstdint>"]),
        "a/report.hpp": ("#pragma once\n#include <vector>\n", []),
        # The header through a project header: fine.
        "a/through.cpp": ("#include \"with_cstdint.hpp\"\nstd::int64_t g();\n", []),
        "a/with_cstdint.hpp": ("#pragma once\n#include <cstdint>\n", []),
        # Names in comments and strings do not count; a C name needs <cstdint> or <stdint.h>.
        "a/comments.c": ("#include <stdint.h>\n// std::sort\nconst char* s = \"std::vector\";\n"
                         "int64_t x;\n", []),
        "a/c_name.cpp": ("#include <vector>\nuint32_t y;\n", ["uint32_t needs <cstdint>"]),
        # GCC 14's break: std::sort through <vector>; what the standard requires a header to
        # include counts (<iostream> brings <ostream>: std::endl).
        "a/sort.cpp": ("#include <vector>\n#include <iostream>\n"
                       "void h(std::vector<int>& v) { std::sort(v.begin(), v.end()); "
                       "std::cout << std::endl; }\n", ["std::sort needs <algorithm>"]),
        # A name the table lacks is reported.
        "a/unknown.cpp": ("#include <vector>\nstd::frobnicate x;\n", ["std::frobnicate: not in"]),
        # Nested names take their first component's header; traits take <type_traits>.
        "a/nested.cpp": ("#include <chrono>\n#include <string>\n#include <type_traits>\n"
                         "auto t = std::chrono::steady_clock::now(); auto n = std::string::npos;\n"
                         "constexpr bool b = std::is_same_v<int, long>;\n", []),
        # A macro's parameter is no standard name.
        "a/macro.hpp": ("#include <cmath>\n#define F(name) \\\n  float name(float x) { return std::name(x); }\n"
                        "F(exp)\n", []),
        "a/missing_trait.cpp": ("#include <string>\nconstexpr bool b = std::is_integral_v<int>;\n",
                                ["std::is_integral_v needs <type_traits>"]),
    }
    with tempfile.TemporaryDirectory() as root:
        for name, (text, _) in cases.items():
            os.makedirs(os.path.join(root, os.path.dirname(name)), exist_ok=True)
            with open(os.path.join(root, name), "w", encoding="utf-8") as f:
                f.write(text)
        tree = Tree(root, list(cases))
        failed = 0
        for name, (_, expected) in cases.items():
            got = check_file(tree, name)
            ok = len(got) == len(expected) and all(e in g for e, g in zip(expected, got))
            if not ok:
                failed += 1
                print(f"self-test: {name}: expected {expected}, got {got}")
    print(f"check-includes.py self-test: {len(cases) - failed} of {len(cases)} cases as expected")
    return failed == 0

def main():
    args = sys.argv[1:]
    if args == ["--self-test"]:
        return 0 if self_test() else 1
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    findings, count = run(root, args)
    for f in findings:
        print(f)
    print(f"check-includes.py: {count} files, {len(findings)} findings")
    return 1 if findings else 0

if __name__ == "__main__":
    sys.exit(main())
