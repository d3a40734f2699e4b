// RX adapter: Altera's 128-bit Avalon-ST (Stratix IV hard IP, rx_st_*0) to the
// peach2_core beat format (pcie_model::beats).
//
// What changes between the two formats:
// - Holes: the hard IP leaves one empty lane per TLP for qword alignment (rules in
//   hip_tlp_layout.v); the core format has none. A TLP whose hole is removed gets
//   one DW shorter, so beats are re-cut: up to 3 DWs wait in `carry` for the next
//   beat. The beat that ends a TLP can complete two output beats; both enter a
//   small output queue at once, so the adapter takes a hard IP beat every cycle
//   (stalling for the extra beat would make it slower than a saturated link).
// - Byte order: header DWs are the same on both sides (byte 0 in bits 31:24); the
//   hard IP carries payload DWs little-endian (payload byte 0 in bits 7:0, same
//   guide, "Mapping Avalon-ST Packets to PCI Express TLPs"), the core big-endian,
//   so every payload DW is byte-swapped.
// - End of packet: rx_st_empty0 counts empty qwords, the core's empty counts DWs.
//   The DW count comes from the header (length field, header size, digest), and
//   unused lanes of the last beat are zeroed as the core format requires.
// - Backpressure: the hard IP keeps sending for up to READY_LATENCY cycles after
//   rx_st_ready falls; a skid FIFO takes those beats.
module hip_rx_adapter #(
    parameter ECRC_FORWARD = 0,
    parameter READY_LATENCY = 3,
    parameter SKID_LOG2 = 3
) (
    input  wire         clk,
    input  wire         rst,
    // Hard IP side.
    input  wire [127:0] rx_st_data,
    input  wire         rx_st_valid,
    output wire         rx_st_ready,
    input  wire         rx_st_sop,
    input  wire         rx_st_eop,
    // Core side.
    output wire [127:0] rx_data,
    output wire         rx_valid,
    input  wire         rx_ready,
    output wire         rx_sop,
    output wire         rx_eop,
    output wire [1:0]   rx_empty
);
    // rx_st_ready falls once more than SKID_THRESHOLD beats are held; the beat of
    // that cycle and READY_LATENCY more may still come: THRESHOLD + 1 + LATENCY
    // must not exceed the FIFO's depth.
    localparam SKID_THRESHOLD = (1 << SKID_LOG2) - READY_LATENCY - 1;

    wire [129:0]         f_dout;
    wire                 f_valid;
    wire                 f_din_ready;
    wire                 f_pop;
    wire [SKID_LOG2+1:0] f_level;

    fwft_fifo #(.WIDTH(130), .LOG2_DEPTH(SKID_LOG2)) skid (
        .clk(clk), .rst(rst),
        .din({rx_st_sop, rx_st_eop, rx_st_data}), .din_valid(rx_st_valid), .din_ready(f_din_ready),
        .dout(f_dout), .dout_valid(f_valid), .dout_ready(f_pop),
        .level(f_level)
    );
    assign rx_st_ready = f_din_ready && (f_level <= SKID_THRESHOLD);

    wire [127:0] d = f_dout[127:0];
    wire         d_sop = f_dout[129];
    wire         d_eop = f_dout[128];

    wire        hdr4;
    wire [10:0] total_dws;
    wire        hole_sop;
    wire        hole_next;
    hip_tlp_layout #(.ECRC_FORWARD(ECRC_FORWARD)) layout (
        .fmt(d[30:29]), .type_hi(d[28:27]), .td(d[15]), .length(d[9:0]),
        .addr2_3dw(d[66]), .addr2_4dw(d[98]),
        .hdr4(hdr4), .total_dws(total_dws),
        .hole_in_sop_beat(hole_sop), .hole_in_next_beat(hole_next)
    );

    reg [95:0] carry;       // DWs waiting for the next output beat, lane 0 first
    reg [1:0]  carry_n;
    reg [10:0] left;        // DWs of the current TLP still to take from the hard IP
    reg        skip_lane0;  // this beat starts with the 4-DW header's hole
    reg        first;       // next output beat is a TLP's first
    reg        drain;       // TLP complete by its length: drop beats up to rx_st_eop0

    // Lanes this beat offers, and how many of them belong to the TLP.
    wire [2:0]  avail = (d_sop ? hole_sop : skip_lane0) ? 3'd3 : 3'd4;
    wire [10:0] left_now = d_sop ? total_dws : left;
    wire [2:0]  take = drain ? 3'd0
                     : (left_now >= {8'd0, avail}) ? avail
                     : left_now[2:0];
    wire [10:0] left_next = left_now - {8'd0, take};
    wire        ends = !drain && (d_eop || left_next == 11'd0);

    // Header lanes keep their order; payload lanes are byte-swapped.
    wire [3:0] is_hdr = d_sop ? {hdr4, 3'b111} : 4'b0000;
    wire [127:0] lanes;
    genvar k;
    generate
        for (k = 0; k < 4; k = k + 1) begin : g_swap
            wire [31:0] dw = d[32*k+31:32*k];
            assign lanes[32*k+31:32*k] = is_hdr[k] ? dw : {dw[7:0], dw[15:8], dw[23:16], dw[31:24]};
        end
    endgenerate

    // The TLP's DWs of this beat, packed from lane 0, unused lanes zero.
    wire [127:0] shifted = (!d_sop && skip_lane0) ? {32'd0, lanes[127:32]} : lanes;
    reg  [127:0] fresh;
    always @* begin
        case (take)
            3'd0: fresh = 128'd0;
            3'd1: fresh = {96'd0, shifted[31:0]};
            3'd2: fresh = {64'd0, shifted[63:0]};
            3'd3: fresh = {32'd0, shifted[95:0]};
            default: fresh = shifted;
        endcase
    end

    // carry followed by fresh: up to 7 DWs.
    reg [223:0] joined;
    always @* begin
        case (carry_n)
            2'd0: joined = {96'd0, fresh};
            2'd1: joined = {64'd0, fresh, carry[31:0]};
            2'd2: joined = {32'd0, fresh, carry[63:0]};
            default: joined = {fresh, carry};
        endcase
    end
    wire [2:0] joined_n = {1'b0, carry_n} + take;

    // What this beat completes: beat A, and with A the end of a TLP longer than
    // what fits, beat B with the rest. Records are {sop, eop, empty, data}.
    wire        full_beat = joined_n >= 3'd4;
    wire        push_a = full_beat || (ends && joined_n != 3'd0);
    wire        push_b = ends && joined_n > 3'd4;
    wire [131:0] beat_a = {first, ends && joined_n <= 3'd4,
                           (ends && !full_beat) ? 2'd0 - joined_n[1:0] : 2'd0, joined[127:0]};
    wire [131:0] beat_b = {1'b0, 1'b1, 2'd0 - joined_n[1:0], 32'd0, joined[223:128]};

    // Output queue: up to two beats in per cycle, one out. A hard IP beat is taken
    // only when two entries are free after this cycle's pop.
    reg  [131:0] queue [0:3];
    reg  [1:0]   q_rd;
    reg  [1:0]   q_wr;
    reg  [2:0]   q_count;
    wire         q_pop = rx_valid && rx_ready;
    assign rx_valid = q_count != 3'd0;
    assign {rx_sop, rx_eop, rx_empty, rx_data} = queue[q_rd];
    assign f_pop = f_valid && (q_count - {2'd0, q_pop}) <= 3'd2;
    wire         take_a = f_pop && push_a;
    wire         take_b = f_pop && push_b;
    wire [1:0]   q_wr_next = q_wr + 2'd1;

    always @(posedge clk) begin
        if (take_a) queue[q_wr] <= beat_a;
        if (take_b) queue[q_wr_next] <= beat_b;
    end

    always @(posedge clk) begin
        if (rst) begin
            q_rd <= 2'd0;
            q_wr <= 2'd0;
            q_count <= 3'd0;
            carry <= 96'd0;
            carry_n <= 2'd0;
            left <= 11'd0;
            skip_lane0 <= 1'b0;
            first <= 1'b1;
            drain <= 1'b0;
        end else begin
            q_rd <= q_rd + {1'b0, q_pop};
            q_wr <= q_wr + {1'b0, take_a} + {1'b0, take_b};
            q_count <= q_count + {2'd0, take_a} + {2'd0, take_b} - {2'd0, q_pop};
            if (f_pop) begin
                left <= left_next;
                skip_lane0 <= d_sop && hole_next;
                drain <= drain ? !d_eop : (ends && !d_eop);
                if (ends) first <= 1'b1;
                else if (push_a) first <= 1'b0;
                if (ends) begin
                    carry <= 96'd0;
                    carry_n <= 2'd0;
                end else if (full_beat) begin
                    carry <= joined[223:128];
                    carry_n <= joined_n[1:0];
                end else begin
                    carry <= joined[95:0];
                    carry_n <= joined_n[1:0];
                end
            end
        end
    end
endmodule
