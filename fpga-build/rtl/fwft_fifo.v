// First-word-fall-through FIFO on a synchronous-read RAM, one clock.
//
// The RAM has a registered read (Quartus maps it to M9K/MLAB, Yosys keeps it as
// $mem), so the output needs two register stages to stream one word per cycle:
// `q` holds the word just read, `dout` is what the consumer sees. Capacity is
// DEPTH words in the RAM plus the two stages.
//
// `level` counts every word held (RAM, q and dout): producers that cannot stop at
// once (a hard IP with ready latency) size their threshold on it.
module fwft_fifo #(
    parameter WIDTH = 8,
    parameter LOG2_DEPTH = 3
) (
    input  wire                  clk,
    input  wire                  rst,
    input  wire [WIDTH-1:0]      din,
    input  wire                  din_valid,
    output wire                  din_ready,
    output reg  [WIDTH-1:0]      dout,
    output reg                   dout_valid,
    input  wire                  dout_ready,
    output wire [LOG2_DEPTH+1:0] level
);
    localparam DEPTH = 1 << LOG2_DEPTH;

    reg [WIDTH-1:0] mem [0:DEPTH-1];
    reg [WIDTH-1:0] q;
    reg             q_valid;
    reg [LOG2_DEPTH:0] wr_ptr;
    reg [LOG2_DEPTH:0] rd_ptr;

    wire [LOG2_DEPTH:0] stored = wr_ptr - rd_ptr;
    wire full = stored[LOG2_DEPTH];
    wire wr_en = din_valid && !full;
    wire dout_load = q_valid && (!dout_valid || dout_ready);
    wire rd_en = (stored != 0) && (!q_valid || dout_load);

    assign din_ready = !full;
    assign level = {1'b0, stored} + {{LOG2_DEPTH+1{1'b0}}, q_valid} + {{LOG2_DEPTH+1{1'b0}}, dout_valid};

    // No reset on the RAM path, so the tools can infer block RAM.
    always @(posedge clk) begin
        if (wr_en) mem[wr_ptr[LOG2_DEPTH-1:0]] <= din;
        if (rd_en) q <= mem[rd_ptr[LOG2_DEPTH-1:0]];
        if (dout_load) dout <= q;
    end

    always @(posedge clk) begin
        if (rst) begin
            wr_ptr <= 0;
            rd_ptr <= 0;
            q_valid <= 1'b0;
            dout_valid <= 1'b0;
        end else begin
            if (wr_en) wr_ptr <= wr_ptr + 1'b1;
            if (rd_en) rd_ptr <= rd_ptr + 1'b1;
            if (rd_en) q_valid <= 1'b1;
            else if (dout_load) q_valid <= 1'b0;
            if (dout_load) dout_valid <= 1'b1;
            else if (dout_ready) dout_valid <= 1'b0;
        end
    end
endmodule
