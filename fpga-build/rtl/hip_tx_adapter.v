// TX adapter: the peach2_core beat format (pcie_model::beats) to Altera's 128-bit
// Avalon-ST (Stratix IV hard IP, tx_st_*0). The inverse of hip_rx_adapter.v.
//
// - Holes: the alignment hole the hard IP expects (rules in hip_tlp_layout.v) is
//   inserted, so a TLP gets one slot longer and beats are re-cut: one DW waits in
//   `carry`, and a TLP can end with one extra beat (`flush`), during which the
//   core is held off.
// - Byte order: payload DWs are byte-swapped to the hard IP's little-endian order;
//   header DWs are unchanged.
// - End of packet: tx_st_empty0 is set when the last beat uses only the low qword.
// - Store and forward: the hard IP wants tx_st_valid0 held from sop to eop in every
//   ready cycle, while the core's stream may pause inside a TLP. Beats collect in a
//   FIFO and a TLP is sent only once its last beat is in (or the FIFO is full, for a
//   TLP longer than the FIFO: then a pause is possible).
// - Ready latency: tx_st_valid0 may be high only READY_LATENCY cycles after
//   tx_st_ready0 was high.
module hip_tx_adapter #(
    parameter READY_LATENCY = 2,
    parameter BUFFER_LOG2 = 6
) (
    input  wire         clk,
    input  wire         rst,
    // Core side.
    input  wire [127:0] tx_data,
    input  wire         tx_valid,
    output wire         tx_ready,
    input  wire         tx_sop,
    input  wire         tx_eop,
    input  wire [1:0]   tx_empty,
    // Hard IP side.
    output wire [127:0] tx_st_data,
    output wire         tx_st_valid,
    input  wire         tx_st_ready,
    output wire         tx_st_sop,
    output wire         tx_st_eop,
    output wire         tx_st_empty
);
    wire        hdr4;
    wire        hole_sop;
    wire        hole_next;
    hip_tlp_layout layout (
        .fmt(tx_data[30:29]), .type_hi(tx_data[28:27]), .td(tx_data[15]), .length(tx_data[9:0]),
        .addr2_3dw(tx_data[66]), .addr2_4dw(tx_data[98]),
        .hdr4(hdr4), .total_dws(),
        .hole_in_sop_beat(hole_sop), .hole_in_next_beat(hole_next)
    );

    reg [31:0] carry;      // a DW waiting for the next output beat
    reg        carry_n;
    reg        hole_due;   // the next beat starts with the 4-DW header's hole
    reg        flush;      // carry holds the end of a TLP

    // The beat's DWs, unused lanes zero; header lanes unchanged, payload swapped.
    wire [2:0] n_in = tx_eop ? 3'd4 - {1'b0, tx_empty} : 3'd4;
    wire [3:0] is_hdr = tx_sop ? {hdr4, 3'b111} : 4'b0000;
    wire [127:0] lanes;
    genvar k;
    generate
        for (k = 0; k < 4; k = k + 1) begin : g_swap
            wire [31:0] dw = (n_in > k) ? tx_data[32*k+31:32*k] : 32'd0;
            assign lanes[32*k+31:32*k] = is_hdr[k] ? dw : {dw[7:0], dw[15:8], dw[23:16], dw[31:24]};
        end
    endgenerate

    // The beat's slots with the hole inserted: up to 5.
    wire ins_lane3 = tx_sop && hole_sop && n_in == 3'd4;
    wire ins_lane0 = !tx_sop && hole_due;
    wire [159:0] fresh = ins_lane3 ? {lanes[127:96], 32'd0, lanes[95:0]}
                       : ins_lane0 ? {lanes, 32'd0}
                       : {32'd0, lanes};
    wire [2:0] fresh_n = n_in + {2'd0, ins_lane3 || ins_lane0};

    // carry followed by fresh. Only one hole per TLP and carry is empty at every
    // sop, so a beat with a hole never meets a carried DW: at most 5 slots.
    wire [159:0] joined = carry_n ? {fresh[127:0], carry} : fresh;
    wire [2:0]   joined_n = fresh_n + {2'd0, carry_n};

    // Output register stage, feeding the store-and-forward FIFO.
    reg [127:0] o_data;
    reg         o_valid;
    reg         o_sop;
    reg         o_eop;
    reg         o_empty;
    reg         o_first;
    wire        o_ready;
    wire        step = !o_valid || o_ready;
    assign tx_ready = step && !flush;

    always @(posedge clk) begin
        if (rst) begin
            o_data <= 128'd0;
            o_valid <= 1'b0;
            o_sop <= 1'b0;
            o_eop <= 1'b0;
            o_empty <= 1'b0;
            o_first <= 1'b1;
            carry <= 32'd0;
            carry_n <= 1'b0;
            hole_due <= 1'b0;
            flush <= 1'b0;
        end else if (step) begin
            if (flush) begin
                o_data <= {96'd0, carry};
                o_valid <= 1'b1;
                o_sop <= o_first;
                o_eop <= 1'b1;
                o_empty <= 1'b1;
                o_first <= 1'b1;
                carry <= 32'd0;
                carry_n <= 1'b0;
                flush <= 1'b0;
            end else if (tx_valid) begin
                hole_due <= tx_sop && hole_next;
                if (joined_n > 3'd4 || !tx_eop) begin
                    // A full beat (a beat without eop always has 4 DWs, so at
                    // least 4 slots); with eop, the fifth slot follows in a flush.
                    o_data <= joined[127:0];
                    o_valid <= 1'b1;
                    o_sop <= o_first;
                    o_eop <= 1'b0;
                    o_empty <= 1'b0;
                    o_first <= 1'b0;
                    carry <= joined[159:128];
                    carry_n <= joined_n[0];
                    flush <= tx_eop;
                end else begin
                    o_data <= joined[127:0];
                    o_valid <= 1'b1;
                    o_sop <= o_first;
                    o_eop <= 1'b1;
                    o_empty <= joined_n <= 3'd2;
                    o_first <= 1'b1;
                    carry <= 32'd0;
                    carry_n <= 1'b0;
                end
            end else begin
                o_valid <= 1'b0;
            end
        end
    end

    // Store and forward.
    wire [130:0]           f_dout;
    wire                   f_valid;
    wire                   f_din_ready;
    wire                   f_pop;
    assign o_ready = f_din_ready;

    fwft_fifo #(.WIDTH(131), .LOG2_DEPTH(BUFFER_LOG2)) buffer (
        .clk(clk), .rst(rst),
        .din({o_sop, o_eop, o_empty, o_data}), .din_valid(o_valid), .din_ready(f_din_ready),
        .dout(f_dout), .dout_valid(f_valid), .dout_ready(f_pop),
        .level()
    );

    // Complete TLPs in the FIFO; the head TLP is complete whenever this is nonzero.
    reg [BUFFER_LOG2+2:0] complete;
    wire pushed_eop = o_valid && f_din_ready && o_eop;
    wire popped_eop = f_pop && f_dout[129];
    always @(posedge clk) begin
        if (rst) complete <= 0;
        else if (pushed_eop && !popped_eop) complete <= complete + 1'b1;
        else if (popped_eop && !pushed_eop) complete <= complete - 1'b1;
    end

    // tx_st_ready0 as it was READY_LATENCY cycles ago.
    reg [READY_LATENCY-1:0] ready_pipe;
    generate
        if (READY_LATENCY == 1) begin : g_rl1
            always @(posedge clk) ready_pipe <= rst ? 1'b0 : tx_st_ready;
        end else begin : g_rln
            always @(posedge clk)
                ready_pipe <= rst ? {READY_LATENCY{1'b0}} : {ready_pipe[READY_LATENCY-2:0], tx_st_ready};
        end
    endgenerate
    wire ready_cycle = ready_pipe[READY_LATENCY-1];
    wire may_send = (complete != 0) || !f_din_ready;

    assign f_pop = f_valid && ready_cycle && may_send;
    assign tx_st_valid = f_pop;
    assign tx_st_sop = f_dout[130];
    assign tx_st_eop = f_dout[129];
    assign tx_st_empty = f_dout[128];
    assign tx_st_data = f_dout[127:0];
endmodule
