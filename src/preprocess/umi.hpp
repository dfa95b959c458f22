// fastp 0.23.2's UMI handling (-U, --umi_loc, --umi_len, --umi_prefix,
// --umi_skip): where a read's UMI comes from and how it is added to the
// read's name. The engine applies it right after the duplication check and
// --fix_mgi_id, before any trimming, as fastp does.
#pragma once

#include <string>
#include <string_view>

namespace seqfuse::preprocess {

enum class UmiLocation { none, index1, index2, read1, read2, per_index, per_read };

// "index1" ... "per_read" (any case); none for anything else.
[[nodiscard]] UmiLocation parse_umi_location(std::string text);

// fastp's Read::firstIndex and lastIndex: the index sequence(s) at the end
// of an Illumina header ("...:ACGT+TTGA"): the first one, or the last.
// Empty for headers under 5 characters or without ':'.
[[nodiscard]] std::string_view first_index(std::string_view header);
[[nodiscard]] std::string_view last_index(std::string_view header);

// fastp's addUmiToName: ":UMI" (or ":PREFIX_UMI") before the first space of
// the header, or at its end.
void add_umi_to_name(std::string& header, std::string_view umi, std::string_view prefix);

}  // namespace seqfuse::preprocess
