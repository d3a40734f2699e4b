// Where Altera's 128-bit Avalon-ST hard IP interface leaves a qword-alignment hole
// in a TLP, and how many DWs the TLP has. Used by both adapters, so the rules live
// in one place.
//
// The rule (Altera IP Compiler for PCI Express User Guide, "Data Alignment and
// Timing for the 128-Bit Avalon-ST RX/TX Interface"; the same text is in the
// Arria V / Stratix V Avalon-ST hard IP guides): the hard IP aligns payload to
// qwords. A payload DW whose address has bit 2 set sits in an odd lane (1 or 3).
// For requests with data the address is the request address; for completions
// with data it is the lower address field; message TLPs are laid out like 4-DW
// headers without an address (no hole). Address bit 2 is bit 2 of header DW2 for
// 3-DW headers (address[31:2] or, for completions, lower address[6:0]) and bit 2
// of DW3 for 4-DW headers (address[31:2]).
//
// - 3-DW header with data, address bit 2 clear: the header fills lanes 0-2 of the
//   sop beat, lane 3 is a hole, payload DW0 starts in lane 0 of the next beat.
// - 3-DW header with data, address bit 2 set: payload DW0 in lane 3 of the sop beat.
// - 4-DW header with data, address bit 2 set (not a message): lane 0 of the
//   second beat is a hole, payload DW0 in lane 1.
// - 4-DW header with data otherwise: payload DW0 in lane 0 of the second beat.
module hip_tlp_layout #(
    // 1 if the hard IP variant forwards the ECRC digest to the application.
    parameter ECRC_FORWARD = 0
) (
    input  wire [1:0]  fmt,        // header DW0 bits 30:29: with data, 4-DW header
    input  wire [1:0]  type_hi,    // header DW0 bits 28:27: 2'b10 for messages
    input  wire        td,         // header DW0 bit 15: digest present
    input  wire [9:0]  length,     // header DW0 bits 9:0: payload DWs, 0 means 1024
    input  wire        addr2_3dw,  // header DW2 bit 2
    input  wire        addr2_4dw,  // header DW3 bit 2
    output wire        hdr4,
    output wire [10:0] total_dws,
    output wire        hole_in_sop_beat,
    output wire        hole_in_next_beat
);
    wire has_data = fmt[1];
    wire is_msg = (type_hi == 2'b10);
    wire [10:0] payload = !has_data ? 11'd0
                        : (length == 10'd0) ? 11'd1024
                        : {1'b0, length};
    wire [10:0] digest = (ECRC_FORWARD != 0 && td) ? 11'd1 : 11'd0;

    assign hdr4 = fmt[0];
    assign total_dws = (hdr4 ? 11'd4 : 11'd3) + payload + digest;
    assign hole_in_sop_beat = has_data && !hdr4 && !addr2_3dw;
    assign hole_in_next_beat = has_data && hdr4 && !is_msg && addr2_4dw;
endmodule
